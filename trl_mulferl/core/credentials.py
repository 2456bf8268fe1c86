"""API keys and endpoint credentials kept out of errors, logs and saved arguments (light: the config imports it)."""

import logging
import os
import re


_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ALPHANUMERIC_RUN = re.compile(r"[A-Za-z0-9]+")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
MASK = "***"


def check_api_key_variable(value: str | None, field: str):
    """Refuse a `value` of `field` that is not the name of a set environment variable, without ever showing it: a key
    pasted there would be echoed in errors and saved with the arguments. A name-shaped key (hex, `AKIA...`, a long
    upper-case token) passes any test of its shape, so the test that counts is that the variable is set."""
    if not value:
        return
    looks_like_a_key = any(
        len(run) >= 20 and not run.isupper() and not run.islower() and any(c.isdigit() for c in run)
        for run in _ALPHANUMERIC_RUN.findall(value)
    )
    if not _VARIABLE_NAME.fullmatch(value) or looks_like_a_key:
        raise ValueError(
            f"{field} must be the name of the environment variable that holds the API key (letters, digits and _, "
            "such as OPENAI_API_KEY), not the key itself; the value given is not shown, in case it is one. Export the "
            "key in a variable (`export MY_FEEDBACK_KEY=...`) and pass that variable's name."
        )
    if not os.environ.get(value):
        raise ValueError(
            f"The variable named by {field} is not set (or empty); its name is not shown, in case it is a key. Export "
            "the key in a variable (`export MY_FEEDBACK_KEY=...`) and pass that variable's name."
        )


def masked_url(url: str | None) -> str | None:
    """`url` as its scheme, host, port and path, with all else masked as `***`: user info (with or without a
    scheme), `;` parameters, the query and the fragment, any of which can carry a key."""
    if not url:
        return url
    scheme = _SCHEME.match(url)
    scheme = scheme.group() if scheme else ""
    rest = url[len(scheme) :]
    # A raw `?` or `#` in a password ends the visible part early: more is masked, never less.
    tail_start = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    head, tail = rest[:tail_start], rest[tail_start:]
    userinfo, at, location = head.rpartition("@")
    location, semicolon, _ = location.partition(";")
    return (
        scheme
        + (f"{MASK}@" if at else "")
        + location
        + (f";{MASK}" if semicolon else "")
        + (f"{tail[0]}{MASK}" if tail else "")
    )


class _MaskedURLArguments(logging.Filter):
    """Masks the URLs in a log record's arguments: httpx logs each request's URL, user info and query included."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(masked_url(str(arg)) if _SCHEME.match(str(arg)) else arg for arg in record.args)
        return True


_URL_ARGUMENTS_FILTER = _MaskedURLArguments()


def mask_urls_in_http_logs():
    """Keep credentials out of httpx's request lines (`HTTP Request: POST <url> ...`, INFO), for every client: the
    `openai` client's fork logs as `httpx2`."""
    for name in ("httpx", "httpx2"):
        http_logger = logging.getLogger(name)
        if _URL_ARGUMENTS_FILTER not in http_logger.filters:
            http_logger.addFilter(_URL_ARGUMENTS_FILTER)


def read_api_key(api_key_env: str | None, base_url: str | None, field: str) -> tuple[str, str]:
    """The API key for an endpoint and where it came from, for messages: the variable `api_key_env` names (`field`
    says which setting that is), else `OPENAI_API_KEY` for OpenAI's API and no key for any other endpoint, so that an
    exported OpenAI key is never sent to another server."""
    if api_key_env:
        check_api_key_variable(api_key_env, field)
        return os.environ[api_key_env], f"the variable named by {field}"
    if base_url is not None:
        return "EMPTY", "no key"  # the client refuses to start without a key; keyless local servers accept any
    if not os.environ.get("OPENAI_API_KEY"):
        raise ValueError(
            f"OPENAI_API_KEY is not set: export your OpenAI API key there, or set {field} to the name of the variable "
            "that holds it."
        )
    return os.environ["OPENAI_API_KEY"], "OPENAI_API_KEY"


class MaskedEndpointURLs:
    """A config mixin: the credentials in its endpoint URLs (the feedback endpoint's, the vLLM server's) kept out of
    what shows the arguments: wandb's and trackio's config (`to_dict`), logs (`str`) and `training_args.bin` (a pickle
    of the arguments). Each URL keeps its scheme, host, port and path."""

    _URL_FIELDS = ("feedback_base_url", "vllm_server_base_url")

    def _masked_urls(self) -> dict[str, str | None]:
        return {name: masked_url(getattr(self, name)) for name in self._URL_FIELDS if hasattr(self, name)}

    def __getstate__(self):
        return {**self.__dict__, **self._masked_urls()}

    def to_dict(self):
        return {**super().to_dict(), **self._masked_urls()}

    def __str__(self):
        text = super().__str__()
        for name, masked in self._masked_urls().items():
            if getattr(self, name):
                text = text.replace(getattr(self, name), masked)
        return text
