"""The model card a MulFeRL run writes next to its weights: TRL's card (the same metadata, tags, tracker badges and
citations, through `huggingface_hub.ModelCard`), with links only to what is on the Hub, the MulFeRL settings that
define the run and its feedback statistics: the end-of-training summary (`trl_mulferl.core.summary`), from the counts
kept over the run (so far, in a checkpoint's card)."""

import importlib.metadata
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import ModelCard, ModelCardData
from huggingface_hub.errors import HFValidationError
from huggingface_hub.utils import validate_repo_id
from transformers import is_wandb_available
from trl.trainer.utils import get_comet_experiment_url, get_config_model_id, get_trackio_space_url

from .metrics import trainer_summary
from .summary import summary_lines


# TRL's templates/lm_model_card.md, but a local model, dataset or output folder is named, not linked to the Hub.
TEMPLATE = """---
{{ card_data }}
---

# Model Card for {{ model_name }}

This model is a fine-tuned version of {{ base_model }}{% if dataset %} on {{ dataset }}{% endif %}.
It has been trained with {{ trainer_name }}{% if method_name %} ({{ method_name }}){% endif %} using
[TRL](https://github.com/huggingface/trl) and `trl_mulferl`.

## Quick start

{{ quick_start_note }}

```python
from transformers import pipeline
{% if quick_start_import %}
{{ quick_start_import }}
{% endif %}
generator = pipeline("text-generation", model="{{ model_id }}", device_map="auto")
output = generator({{ quick_start_prompt }}, max_new_tokens=512, return_full_text=False)[0]
print(output["generated_text"])
```

## Training procedure

{% if wandb_url %}[<img src="https://raw.githubusercontent.com/wandb/assets/main/wandb-github-badge-28.svg" \
alt="Visualize in Weights & Biases" width="150" height="24"/>]({{ wandb_url }}){% endif %}
{% if trackio_url %}[<img src="https://raw.githubusercontent.com/gradio-app/trackio/refs/heads/main/trackio/assets/\
badge.png" alt="Visualize in Trackio" title="Visualize in Trackio" width="150" height="24"/>]({{ trackio_url }})\
{% endif %}
{% if comet_url %}[<img src="https://raw.githubusercontent.com/comet-ml/comet-examples/master/logo/comet_badge.png" \
alt="Visualize in Comet" width="150" height="24"/>]({{ comet_url }}){% endif %}

This model was trained with {{ trainer_name }}, the method of *{{ paper_title }}*: {{ method_description }}

### {{ settings_title }}

| setting | value |
|---|---|
{% for name, value in settings %}| `{{ name }}` | {{ value }} |
{% endfor %}
{% if statistics %}### Feedback statistics

{{ statistics[0] }}

{% for line in statistics[1:] %}- {{ line }}
{% endfor %}
{% endif %}### Framework versions

- TRL: {{ trl_version }}
- Transformers: {{ transformers_version }}
- Pytorch: {{ pytorch_version }}
- Datasets: {{ datasets_version }}
- Tokenizers: {{ tokenizers_version }}

## Citations

Cite {{ trainer_name }} as:

```bibtex
{{ trainer_citation }}
```

Cite TRL as:

```bibtex
{% raw %}@software{vonwerra2020trl,
  title   = {{TRL: Transformers Reinforcement Learning}},
  author  = {von Werra, Leandro and Belkada, Younes and Tunstall, Lewis and Beeching, Edward and Thrush, Tristan and \
Lambert, Nathan and Huang, Shengyi and Rasul, Kashif and Gallouédec, Quentin},
  license = {Apache-2.0},
  url     = {https://github.com/huggingface/trl},
  year    = {2020}
}{% endraw %}
```
"""


def is_hub_id(name: str | None) -> bool:
    """Whether `name` names a Hub repository: a valid repo id that is not a local path (as `from_pretrained` and
    `load_dataset` read a name: an existing local folder or file first)."""
    if not name or os.path.exists(name) or name.startswith((".", "/", "~")):
        return False
    try:
        validate_repo_id(name)
    except HFValidationError:
        return False
    return True


def describe_model(name: str | None) -> str:
    """The base model in the card's first sentence: a link to its Hub page, or its local path."""
    if is_hub_id(name):
        return f"[{name}](https://huggingface.co/{name})"
    return f"the local model `{name}`" if name else "a model"


def describe_dataset(name: str | None) -> str | None:
    """The dataset in the card's first sentence: a link to its Hub page, or its local path."""
    if is_hub_id(name):
        return f"the [{name}](https://huggingface.co/datasets/{name}) dataset"
    return f"the local dataset `{name}`" if name else None


def card_model_name(output_dir: str, hub_model_id: str | None) -> str:
    """The model's name when none is given: the Hub repository's, else the output folder's, as `Trainer.push_to_hub`
    and `GRPOTrainer._save_checkpoint` name it."""
    return hub_model_id.split("/")[-1] if hub_model_id else Path(output_dir).resolve().name


def provider_kind(args, feedback_provider) -> str:
    """The feedback provider in words: the built-in one `args.feedback_provider` names, or the callable's import
    path."""
    if args.max_feedback_turns == 0 or feedback_provider is None:
        return "none (no feedback turns: GRPO)"
    if args.feedback_provider == "openai":
        return f"`openai` (model `{args.feedback_model}`)"
    if args.feedback_provider is not None:
        return f"`{args.feedback_provider}`"
    function = feedback_provider if hasattr(feedback_provider, "__qualname__") else type(feedback_provider)
    return f"`{function.__module__}:{function.__qualname__}`"


def mulferl_settings(args, feedback_provider) -> list[tuple[str, str]]:
    """The MulFeRL settings that define a run, as (field, value) rows."""
    return [
        ("max_feedback_turns", str(args.max_feedback_turns)),
        ("feedback_provider", provider_kind(args, feedback_provider)),
        ("feedback_injection", args.feedback_injection),
        ("fco_weight", f"{args.fco_weight:g}"),
        ("fco_tau", f"{args.fco_tau:g}"),
        ("feedback_replay", str(args.feedback_replay)),
        ("num_generations", str(args.num_generations)),
    ]


def mulferl_model_card(
    *,
    model_name: str,
    base_model: str | None,
    dataset_name: str | None,
    model_id: str,
    tags: list[str],
    trainer_name: str,
    paper: dict,
    settings: list[tuple[str, str]],
    statistics: list[str],
    tracker_urls: dict[str, str | None],
    versions: dict[str, str],
    method: "Method",
) -> ModelCard:
    """The card, from TRL's card data (`trl.trainer.utils.generate_model_card`'s) and `TEMPLATE`.

    Args:
        model_id: Where the Quick start loads the model from: its Hub id, or its local folder.
        tracker_urls: `wandb_url`, `trackio_url`, `comet_url`, each None when that tracker is off.
        versions: `trl_version`, `transformers_version`, ... as TRL's template names them.
    """
    card_data = ModelCardData(
        base_model=base_model if is_hub_id(base_model) else None,
        datasets=dataset_name if is_hub_id(dataset_name) else None,
        library_name="transformers",
        model_name=model_name,
        tags=["generated_from_trainer", *tags],
    )
    return ModelCard.from_template(
        card_data,
        template_str=TEMPLATE,
        model_name=model_name,
        base_model=describe_model(base_model),
        dataset=describe_dataset(dataset_name),
        model_id=model_id,
        trainer_name=trainer_name,
        paper_title=paper["title"],
        trainer_citation=paper["citation"],
        method_name=method.full_name,
        method_description=method.description,
        quick_start_note=method.quick_start_note,
        quick_start_import=method.quick_start_import,
        quick_start_prompt=method.quick_start_prompt,
        settings_title=method.settings_title,
        settings=settings,
        statistics=statistics,
        **tracker_urls,
        **versions,
    )


def trainer_model_card(
    trainer, model_name: str | None, dataset_name: str | None, tags, method: "Method | None" = None
) -> ModelCard:
    """The card of a trainer of `method` (default `MULFERL`), as `_BaseTrainer.create_model_card` gathers it: the base
    model from the model's config, the tags (the trainer's, Unsloth's, HF Jobs', Trackio's) and the trackers' URLs."""
    method = method or MULFERL
    tags = {tags} if isinstance(tags, str) else set(tags or ())
    if hasattr(trainer.model.config, "unsloth_version"):
        tags.add("unsloth")
    if "JOB_ID" in os.environ:
        tags.add("hf_jobs")
    tags.update(trainer._tag_names)
    trackio_url = get_trackio_space_url()
    if trackio_url is not None:  # TRL's rule: one Trackio tag, with this run's URL
        tags = {tag for tag in tags if not tag.startswith("trackio:")} | {f"trackio:{trackio_url}"}
    wandb_url = None
    if is_wandb_available():
        import wandb

        wandb_url = wandb.run.url if wandb.run is not None else None
    args = trainer.args
    packages = ("trl", "transformers", "torch", "datasets", "tokenizers")
    names = ("trl", "transformers", "pytorch", "datasets", "tokenizers")
    return mulferl_model_card(
        model_name=model_name or card_model_name(args.output_dir, args.hub_model_id),
        base_model=get_config_model_id(trainer.model.config),
        dataset_name=dataset_name,
        model_id=trainer.hub_model_id or args.output_dir,
        tags=sorted(tags),
        trainer_name=trainer._name,
        paper=trainer._paper,
        settings=method.settings(trainer),
        statistics=summary_lines(trainer_summary(trainer), feedback=trainer.feedback_provider is not None)
        if method.feedback_statistics
        else [],
        tracker_urls={"wandb_url": wandb_url, "trackio_url": trackio_url, "comet_url": get_comet_experiment_url()},
        versions={f"{name}_version": importlib.metadata.version(p) for name, p in zip(names, packages)},
        method=method,
    )


# ---------------------------------------------------------------------------------------------------------------------
# What a trainer's card says of its method: the one difference between the cards of the MulFeRL trainers and iGRPO's.


@dataclass(frozen=True)
class Method:
    """A trainer's method as its card describes it.

    Args:
        full_name: The method's name in words, after the trainer's (None: the name alone).
        description: What the method does, after "the method of *paper title*:".
        quick_start_note, quick_start_import, quick_start_prompt: The Quick start's sentence, the import its prompt
            needs ("" for none) and the prompt's expression, as the trained model expects prompts.
        settings_title, settings: The settings table's heading, and `trainer -> (field, value) rows`.
        feedback_statistics: Whether the card reports the run's feedback statistics (the end-of-training summary).
    """

    full_name: str | None
    description: str
    quick_start_note: str
    quick_start_import: str
    quick_start_prompt: str
    settings_title: str
    settings: Callable[..., list[tuple[str, str]]]
    feedback_statistics: bool


def mulferl_trainer_settings(trainer) -> list[tuple[str, str]]:
    return mulferl_settings(trainer.args, trainer.feedback_provider)


MULFERL = Method(
    full_name="Multi-turn Feedback-guided Reinforcement Learning",
    description="a prompt whose rollouts all fail gets verbal feedback and is regenerated, and each prompt is "
    "trained on its first turn that shows contrast.",
    quick_start_note="The prompt asks for MulFeRL's answer schema, as the prompts of `trl-mulferl train` do:",
    quick_start_import="from trl_mulferl import make_conversation",
    quick_start_prompt='make_conversation("What is 17 + 25?")',
    settings_title="MulFeRL settings",
    settings=mulferl_trainer_settings,
    feedback_statistics=True,
)


def igrpo_settings(trainer) -> list[tuple[str, str]]:
    """The iGRPO settings that define a run, as (field, value) rows."""
    args = trainer.args
    return [
        ("num_drafts", str(args.num_drafts)),
        ("num_generations", str(args.num_generations)),
        ("max_draft_length", "the whole draft" if args.max_draft_length is None else str(args.max_draft_length)),
        ("loss_type", args.loss_type),
        ("beta", f"{args.beta:g}"),
    ]


IGRPO = Method(
    full_name=None,
    description="each prompt's best of the policy's own drafts (Stage 1) is appended to it, and GRPO trains the "
    "completions of that prompt (Stage 2).",
    quick_start_note="The model answers the plain prompt in one shot: the drafts are a training device.",
    quick_start_import="",
    quick_start_prompt='[{"role": "user", "content": "What is 17 + 25?"}]',
    settings_title="iGRPO settings",
    settings=igrpo_settings,
    feedback_statistics=False,
)
