"""Episodes on 2 CPU processes (DDP, gloo), launched by tests/mulferl/test_agentic.py as
`accelerate launch --config_file tests/helpers/engine_configs/ddp.yaml two_process_episodes.py OUTPUT_DIR`.

The lock environment of tests/helpers/agentic.py with the scripted policy: rank 0's locks open at turn 0, rank 1's fail,
get the environment's feedback and are regenerated through the tool loop (FCO), so only rank 1 regenerates. Each rank
writes `result_rank{r}.json`: the log history, the weights, and the codes its environments were tried with.
"""

import json
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.helpers.agentic import AGENT_TRAINING, LockEnv, ScriptedPolicy, lock_dataset, lock_script  # noqa: E402
from tests.helpers.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer  # noqa: E402
from trl_mulferl.feedback.environment import EnvironmentFeedbackProvider  # noqa: E402
from trl_mulferl.train import exit_launched_process  # noqa: E402


def main(output_dir: Path):
    settings = {**AGENT_TRAINING, "shuffle_dataset": False, "max_feedback_turns": 1, "fco_weight": 1.0}
    args = MulFeRLConfig(output_dir=str(output_dir), **settings)
    rank = args.process_index  # the config sets up the (CPU, gloo) process group
    tokenizer = build_tiny_tokenizer()
    model_dir = output_dir / "model"  # FCO's reference policy is loaded by path
    with args.main_process_first(desc="save the tiny model"):
        if rank == 0:
            build_tiny_model(tokenizer).save_pretrained(model_dir)
    trainer = MulFeRLTrainer(
        model=str(model_dir),
        args=args,
        # 2 prompts per rank and step: rank 0 gets locks 0 and 1, rank 1 locks 2 and 3.
        train_dataset=lock_dataset(["0", "0", "7", "5"]),
        processing_class=tokenizer,
        environment_factory=LockEnv,
        feedback_provider=EnvironmentFeedbackProvider(),
    )
    trainer.model.generate = ScriptedPolicy(tokenizer, lock_script)
    trainer.train()
    result = {
        "log_history": trainer.state.log_history,
        "parameters": {name: p.flatten().tolist() for name, p in trainer.model.named_parameters()},
        "tried": [environment.tried for environment in trainer.environments],
    }
    (output_dir / f"result_rank{rank}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
    exit_launched_process()
