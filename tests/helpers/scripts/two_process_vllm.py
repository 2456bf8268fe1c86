"""MulFeRL on vLLM colocate with 2 CPU processes (gloo, TRL's `external_launcher`), launched by tests/mulferl/test_vllm.py as
`accelerate launch --config_file tests/helpers/engine_configs/<engine>.yaml two_process_vllm.py OUTPUT_DIR RUN...`, the runs
`mulferl` (FCO off) and `mulferl_fco` one after the other, each into `OUTPUT_DIR/<run>/`.

Rank 0's reward is mixed (GRPO, no feedback turn); rank 1's is 1 exactly when the feedback marker is in the response,
so every group of rank 1 gets a feedback turn and is solved (FCO): the paper recipe's shape, one process needing FCO
and the other not. Each process has its own vLLM engine; weights sync through vLLM's reload (tests/helpers/vllm_cpu.py).
Each rank writes `result_rank{r}.json` (engine facts, log history, full weights, vLLM generate calls per turn).
"""

import json
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.helpers.scripts.two_process_training import FCO, STEPS, engine_facts, full_parameters, set_up_engine  # noqa: E402
from tests.helpers.tiny import build_tiny_tokenizer  # noqa: E402
from tests.helpers.trainer import MARKER, TINY_TRAINING, completion_texts, make_dataset  # noqa: E402
from tests.helpers.vllm_cpu import SharedEngines, colocate_on_cpu  # noqa: E402
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer  # noqa: E402
from trl_mulferl.tiny import build_qwen2  # noqa: E402
from trl_mulferl.train import exit_launched_process  # noqa: E402


def train(output_dir: Path, run: str, engines: SharedEngines, engine_kwargs: dict):
    settings = {**TINY_TRAINING, "max_steps": STEPS, "max_feedback_turns": 1, "beta": 0.1, **engine_kwargs}
    settings |= FCO if run == "mulferl_fco" else {"fco_weight": 0.0}
    run_dir = output_dir / run
    args = MulFeRLConfig(output_dir=str(run_dir), use_vllm=True, vllm_mode="colocate", **settings)
    rank = args.process_index

    def rank_dependent_reward(completions, **kwargs):
        if rank == 0:
            return [float(i % 2 == 0) for i in range(len(completions))]
        return [float(MARKER in text) for text in completion_texts(completions)]

    def provider(prompt, completions, rewards, **columns):
        return f"Issue: the answer misses {MARKER}. Fix steps: 1. write it."

    tokenizer = build_tiny_tokenizer()
    model_dir = output_dir / "model"
    with args.main_process_first(desc="save the tiny model"):
        if rank == 0 and not model_dir.exists():  # 4 heads of 32: vLLM's CPU attention takes head sizes from 32
            build_qwen2(tokenizer, hidden_size=128, num_layers=2).save_pretrained(model_dir)
            tokenizer.save_pretrained(model_dir)
    engines.generate_calls.clear()
    with colocate_on_cpu(engines):
        trainer = MulFeRLTrainer(
            model=str(model_dir),
            reward_funcs=rank_dependent_reward,
            args=args,
            train_dataset=make_dataset(num_prompts=16),
            processing_class=tokenizer,
            feedback_provider=provider,
        )
        trainer.train()
    result = {
        "engine": engine_facts(trainer),
        "log_history": trainer.state.log_history,
        "parameters": {name: p.flatten().tolist() for name, p in full_parameters(trainer).items()},
        "generate_calls": [len(prompts) for prompts, _ in engines.generate_calls],
    }
    (run_dir / f"result_rank{rank}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    output, engine_kwargs, shared_engines = Path(sys.argv[1]), set_up_engine(), SharedEngines()
    for name in sys.argv[2:]:
        train(output, name, shared_engines, engine_kwargs)
    exit_launched_process()
