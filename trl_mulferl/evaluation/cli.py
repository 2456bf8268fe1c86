"""`trl-mulferl eval`: pass@1 over n samples on the paper's benchmarks, with optional test-time feedback turns.

    trl-mulferl eval --model CHECKPOINT --benchmarks math500,aime24 --num_samples 5 --temperature 1.0 --max_tokens 8192
    trl-mulferl eval --base_url http://127.0.0.1:8000/v1 --model NAME --benchmarks olympiadbench=olympiad.jsonl
    trl-mulferl eval --model CHECKPOINT --benchmarks theoremqa --feedback_turns 2 --feedback_provider openai \\
        --feedback_model gpt-4o

Writes `OUTPUT_DIR/samples.jsonl` (one line per sample and turn), `OUTPUT_DIR/summary.json` and, with feedback
turns, `OUTPUT_DIR/pass_at_1_by_turn.png`; prints a table. A rerun with the same output folder generates only the
samples that are missing. torch, transformers and TRL are imported only once the arguments are parsed.
"""

import argparse
import importlib
import importlib.util
import json
import os
import re
import sys
from pathlib import Path

from ..cli import add_config_option, parse_arguments
from ..core.credentials import masked_url
from . import backends
from .benchmarks import BENCHMARKS, PAPER_BENCHMARKS, load_benchmark, parse_benchmarks
from .metrics import summarize
from .runner import FeedbackSettings, evaluate, record_key


SAMPLES_FILE, SUMMARY_FILE, CONFIG_FILE, PLOT_FILE = (
    "samples.jsonl",
    "summary.json",
    "config.json",
    "pass_at_1_by_turn.png",
)
# Settings that change what is generated or how it is scored: a resumed run must match them.
GENERATION_SETTINGS = ["model", "base_url", "temperature", "top_p", "max_tokens", "seed", "system_prompt", "schema"]
FEEDBACK_SETTINGS = ["feedback_provider", "feedback_model", "feedback_base_url", "max_feedback_length"]


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trl-mulferl eval",
        description="Evaluate a model on math and reasoning benchmarks: pass@1 over n samples, pass@k, and pass@1 "
        "after each test-time feedback turn.",
        epilog="Flags may be spelled with underscores or dashes (--num_samples, --num-samples).",
    )
    add_config_option(parser)
    parser.add_argument("--model", required=True, help="Model folder or Hub id; with --base_url, the served name.")
    parser.add_argument(
        "--benchmarks",
        default=",".join(PAPER_BENCHMARKS),
        help="Comma-separated names, or name=path for a local JSONL/parquet file in that benchmark's Hub format. "
        f"Names: {', '.join(BENCHMARKS)}. Default: the paper's eight.",
    )
    parser.add_argument("--output_dir", help="Results folder (default: eval-results/<model name>).")
    parser.add_argument("--limit", type=int, help="Evaluate the first N problems of each benchmark.")
    parser.add_argument("--num_samples", type=int, default=5, help="Samples per problem (paper: 5).")
    parser.add_argument("--temperature", type=float, default=1.0, help="Sampling temperature (paper: 1.0).")
    parser.add_argument("--top_p", type=float, default=1.0)
    parser.add_argument("--max_tokens", type=int, default=8192, help="New tokens per sample (paper: 8192).")
    parser.add_argument("--seed", type=int, default=0, help="Base of the per-sample seeds.")
    parser.add_argument(
        "--no_schema",
        action="store_true",
        help="Score the last \\boxed{} of any response, without MulFeRL's format check (for models not trained "
        "with MulFeRL).",
    )
    parser.add_argument(
        "--no_system_prompt", action="store_true", help="Send the problem alone, without MulFeRL's system prompt."
    )
    backend = parser.add_argument_group("generation backend")
    backend.add_argument(
        "--backend",
        choices=["auto", "vllm", "transformers", "openai"],
        default="auto",
        help="auto: openai with --base_url, else vLLM when importable, else transformers.",
    )
    backend.add_argument("--batch_size", type=int, default=16, help="transformers: samples per generate call.")
    backend.add_argument("--dtype", default="auto", help="transformers and vLLM: the model's dtype.")
    backend.add_argument("--tensor_parallel_size", type=int, default=1, help="vLLM.")
    backend.add_argument("--gpu_memory_utilization", type=float, default=0.9, help="vLLM.")
    backend.add_argument("--max_model_len", type=int, help="vLLM: the context length to reserve.")
    backend.add_argument("--base_url", help="An OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
    backend.add_argument(
        "--api_key_env",
        help="Environment variable holding the endpoint's API key (default: OPENAI_API_KEY without --base_url, no "
        "key with one).",
    )
    backend.add_argument("--max_concurrency", type=int, default=64, help="Endpoint requests in flight.")
    backend.add_argument("--request_timeout", type=float, default=600.0, help="Seconds per endpoint request.")
    backend.add_argument("--chunk_size", type=int, default=512, help="Samples generated between two saves.")
    feedback = parser.add_argument_group("test-time feedback (paper §5.2)")
    feedback.add_argument("--feedback_turns", type=int, default=0, help="Revision turns with feedback.")
    feedback.add_argument(
        "--feedback_provider",
        help="`openai` (an OpenAIFeedbackProvider from --feedback_model/--feedback_base_url), or the dotted path of "
        "any provider callable, e.g. `my_module:feedback` (called as (prompt, completions, rewards, **columns)).",
    )
    feedback.add_argument("--feedback_model", help="The feedback model, e.g. gpt-4o (paper).")
    feedback.add_argument("--feedback_base_url", help="The feedback endpoint (default: OpenAI's).")
    feedback.add_argument("--feedback_api_key_env", help="Environment variable holding the feedback endpoint's key.")
    feedback.add_argument(
        "--max_feedback_length",
        type=int,
        default=1024,
        help="Policy tokens of feedback (and, with openai, the reviewer's reply budget).",
    )
    feedback.add_argument("--feedback_max_concurrency", type=int, default=16)
    feedback.add_argument(
        "--feedback_timeout", type=float, default=60.0, help="Seconds per feedback request attempt (openai)."
    )
    feedback.add_argument("--feedback_deadline", type=float, default=600.0, help="Seconds per batch of requests.")
    return parser


def run_config(args) -> dict:
    return {
        "model": args.model,
        "base_url": masked_url(args.base_url),
        "temperature": args.temperature,
        "top_p": args.top_p,
        "max_tokens": args.max_tokens,
        "seed": args.seed,
        "system_prompt": "none" if args.no_system_prompt else "schema",
        "schema": not args.no_schema,
        "num_samples": args.num_samples,
        "limit": args.limit,
        "feedback_turns": args.feedback_turns,
        "feedback_provider": args.feedback_provider,
        "feedback_model": args.feedback_model,
        "feedback_base_url": masked_url(args.feedback_base_url),
        "max_feedback_length": args.max_feedback_length,
    }


def check_resumable(previous: dict, current: dict):
    """A resumed run must generate and score as the earlier one did; it may add samples, problems and turns."""
    if not previous:
        return
    keys = list(GENERATION_SETTINGS)
    if previous.get("feedback_turns", 0) > 0 and current["feedback_turns"] > 0:
        keys += FEEDBACK_SETTINGS
    changed = [key for key in keys if previous.get(key) != current.get(key)]
    sources = previous.get("sources", {})
    changed += [f"source of {name}" for name, path in current["sources"].items() if sources.get(name, path) != path]
    if changed:
        raise SystemExit(
            f"The output folder holds samples of a run with other settings ({', '.join(changed)}). Use a new "
            "--output_dir, or the earlier settings to resume it."
        )


def folder_config(previous: dict, current: dict) -> dict:
    """What the folder's samples were made with, after this run: every benchmark file used so far, and the feedback
    settings of the last run that had feedback turns."""
    config = {**current, "sources": {**previous.get("sources", {}), **current["sources"]}}
    if current["feedback_turns"] == 0 and previous.get("feedback_turns", 0) > 0:
        config.update({key: previous.get(key) for key in ["feedback_turns", *FEEDBACK_SETTINGS]})
    return config


def read_records(path: Path) -> dict[tuple, dict]:
    """The records of `samples.jsonl` by key; a last line cut off by an interruption is dropped from the file."""
    if not path.exists():
        return {}
    text = path.read_text()
    lines = text.split("\n")
    if lines[-1]:  # no final newline: the last write was interrupted
        path.write_text("\n".join(lines[:-1]) + ("\n" if len(lines) > 1 else ""))
    records = [json.loads(line) for line in lines[:-1] if line]
    return {record_key(record): record for record in records}


def append_records(path: Path, records: list[dict]):
    with path.open("a") as file:
        for record in records:
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
        file.flush()
        os.fsync(file.fileno())


def load_provider(args):
    """The feedback provider the arguments name."""
    spec = args.feedback_provider
    if spec == "openai":
        from ..feedback import OpenAIFeedbackProvider

        if not args.feedback_model:
            raise SystemExit("--feedback_provider openai needs --feedback_model (e.g. gpt-4o).")
        provider = OpenAIFeedbackProvider(
            model=args.feedback_model,
            base_url=args.feedback_base_url,
            api_key_env=args.feedback_api_key_env,
            max_tokens=args.max_feedback_length,  # the reply budget, as in training
            group_size=1,  # one rollout per request: no merge step (paper appendix D.2.5)
            max_concurrency=args.feedback_max_concurrency,
            timeout=args.feedback_timeout,
        )
        provider.check_connection()
        return provider
    module_name, separator, attribute = spec.partition(":") if ":" in spec else spec.rpartition(".")
    if not separator or not module_name or not attribute:
        raise SystemExit(f"--feedback_provider {spec!r}: give `openai` or a dotted path such as my_module:feedback.")
    if os.getcwd() not in sys.path:  # the console script does not put the working directory on the path
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise SystemExit(f"--feedback_provider {spec!r}: cannot import {module_name} ({error}).") from None
    provider = getattr(module, attribute, None)
    if not callable(provider):
        raise SystemExit(f"--feedback_provider {spec!r}: {module_name} has no callable {attribute!r}.")
    return provider


def make_backend(args):
    kind = args.backend
    if kind == "auto":
        kind = "openai" if args.base_url else "vllm" if importlib.util.find_spec("vllm") else "transformers"
    sampling = {"max_tokens": args.max_tokens, "temperature": args.temperature, "top_p": args.top_p}
    if kind == "openai":
        return backends.OpenAIBackend(
            args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            max_concurrency=args.max_concurrency,
            timeout=args.request_timeout,
            **sampling,
        )
    if kind == "vllm":
        return backends.VLLMBackend(
            args.model,
            dtype=args.dtype,
            tensor_parallel_size=args.tensor_parallel_size,
            gpu_memory_utilization=args.gpu_memory_utilization,
            max_model_len=args.max_model_len,
            **sampling,
        )
    return backends.TransformersBackend.from_pretrained(
        args.model, dtype=args.dtype, batch_size=args.batch_size, **sampling
    )


def format_table(summary: dict) -> str:
    """The summary as a text table, in percent."""
    rows = dict(summary["benchmarks"])
    if not rows:
        return "(no benchmarks)"
    first = next(iter(rows.values()))
    ks = [key for key in first if re.fullmatch(r"pass@\d+", key) and key != "pass@1"]
    turns = len(first["pass@1_by_turn"]) - 1
    header = ["benchmark", "problems", "n", "pass@1 (%)", *ks, *(f"after turn {t}" for t in range(1, turns + 1))]
    lines = []
    for name, metrics in rows.items():
        lines.append(
            [
                name,
                str(metrics["problems"]),
                str(metrics["num_samples"]),
                f"{100 * metrics['pass@1']:.1f} ± {100 * metrics['pass@1_std']:.1f}",
                *(f"{100 * metrics[k]:.1f}" for k in ks),
                *(f"{100 * value:.1f}" for value in metrics["pass@1_by_turn"][1:]),
            ]
        )
    average = summary["average"]
    lines.append(
        [
            "average",
            "",
            "",
            f"{100 * average['pass@1']:.1f} ± {100 * average['pass@1_std']:.1f}",
            *([""] * len(ks)),
            *(f"{100 * value:.1f}" for value in average["pass@1_by_turn"][1:]),
        ]
    )
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) for row in [header, *lines])


def plot_turns(summary: dict, path: Path) -> bool:
    """pass@1 against the feedback turn, per benchmark and averaged; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    figure, axes = plt.subplots(figsize=(6, 4))
    for name, metrics in summary["benchmarks"].items():
        values = metrics["pass@1_by_turn"]
        axes.plot(range(len(values)), [100 * v for v in values], marker="o", label=name)
    values = summary["average"]["pass@1_by_turn"]
    axes.plot(range(len(values)), [100 * v for v in values], "k--", marker="s", label="average")
    axes.set_xlabel("feedback turn")
    axes.set_ylabel("pass@1 (%)")
    axes.set_xticks(range(len(values)))
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def main(argv=None) -> dict:
    parser = make_parser()
    args = parse_arguments(parser, sys.argv[1:] if argv is None else list(argv))
    if args.num_samples < 1 or (args.limit is not None and args.limit < 1) or args.feedback_turns < 0:
        raise SystemExit("--num_samples and --limit must be >= 1, --feedback_turns >= 0.")
    if args.feedback_turns > 0 and not args.feedback_provider:
        raise SystemExit("--feedback_turns needs --feedback_provider (openai, or a dotted path to a callable).")
    try:
        sources = parse_benchmarks(args.benchmarks)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    output_dir = Path(args.output_dir or Path("eval-results") / Path(args.model.rstrip("/")).name)
    output_dir.mkdir(parents=True, exist_ok=True)
    config = {**run_config(args), "sources": sources}
    previous = json.loads((output_dir / CONFIG_FILE).read_text()) if (output_dir / CONFIG_FILE).exists() else {}
    check_resumable(previous, config)
    (output_dir / CONFIG_FILE).write_text(json.dumps(folder_config(previous, config), indent=2) + "\n")

    system_prompt = None if args.no_system_prompt else "schema"
    problems = []
    for name, path in sources.items():
        rows = load_benchmark(name, path, limit=args.limit, system_prompt=system_prompt)
        problems += [{"benchmark": name, **row} for row in rows]
    try:  # a missing API key or an unreachable endpoint: one line, as for the other arguments
        provider = load_provider(args) if args.feedback_turns > 0 else None
        backend = make_backend(args)
    except (ValueError, ConnectionError, PermissionError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    settings = None
    if provider is not None:
        settings = FeedbackSettings(
            provider, args.feedback_max_concurrency, args.feedback_deadline, args.max_feedback_length
        )
    samples_path = output_dir / SAMPLES_FILE
    records = evaluate(
        problems,
        backend,
        args.num_samples,
        require_schema=not args.no_schema,
        feedback_turns=args.feedback_turns,
        feedback=settings,
        seed=args.seed,
        finished=read_records(samples_path),
        save=lambda new: append_records(samples_path, new),
        chunk_size=args.chunk_size,
    )
    summary = {"config": config, **summarize(records, args.num_samples, args.feedback_turns)}
    (output_dir / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n")
    print(format_table(summary))
    if args.feedback_turns > 0 and plot_turns(summary, output_dir / PLOT_FILE):
        print(f"pass@1 by feedback turn: {output_dir / PLOT_FILE}")
    print(f"Samples: {samples_path}\nSummary: {output_dir / SUMMARY_FILE}")
    return summary


if __name__ == "__main__":
    main()
