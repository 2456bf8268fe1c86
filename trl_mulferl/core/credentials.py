"""API keys and endpoint credentials kept out of errors, logs and saved arguments (light: the config imports it)."""

import re
import urllib.parse


_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ALPHANUMERIC_RUN = re.compile(r"[A-Za-z0-9]+")


def check_variable_name(value: str | None, field: str):
    """Refuse a `value` of `field` that is no environment variable's name (an API key pasted there, `sk-...`, or a
    token shaped like a name: a run of 20 or more letters and digits that mixes upper case, lower case and digits),
    without showing it: it would be echoed in errors and saved with the arguments."""
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


def masked_url(url: str | None) -> str | None:
    """`url` with its credentials masked, for logs, errors and saved arguments: the user info (`user:password@`) and
    every query value become `***`."""
    if not url:
        return url
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<a URL that does not parse>"
    netloc = f"***@{parts.netloc.rpartition('@')[2]}" if "@" in parts.netloc else parts.netloc
    query = "&".join(
        f"{name}=***" if equals else name
        for name, equals, _ in (item.partition("=") for item in parts.query.split("&"))
    )
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query if parts.query else ""))
