import pytest

from trl_mulferl import MulFeRLConfig


def make_config(**kwargs) -> MulFeRLConfig:
    kwargs.setdefault("per_device_train_batch_size", 8)
    kwargs.setdefault("num_generations", 4)
    return MulFeRLConfig(output_dir="unused", use_cpu=True, bf16=False, report_to="none", **kwargs)


def test_paper_defaults():
    config = make_config()
    assert config.max_feedback_turns == 2
    assert config.fco_weight == 0.01
    assert config.fco_tau == 0.005
    assert config.fco_margin == 0.0
    assert config.fco_pairing == "permutation"
    assert config.feedback_injection == "structured"
    assert config.feedback_group_size == 2
    assert config.max_feedback_length == 1024
    assert config.success_threshold == 1.0


def test_every_new_field_has_help():
    from dataclasses import fields

    from trl import GRPOConfig

    inherited = {f.name for f in fields(GRPOConfig)}
    new = [f for f in fields(MulFeRLConfig) if f.name not in inherited]
    assert len(new) == 36
    assert all(f.metadata.get("help") for f in new)
    assert all(f"{f.name} (`" in MulFeRLConfig.__doc__ for f in new)  # documented in the docstring too


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_feedback_turns", -1),
        ("feedback_injection", "prompt"),
        ("feedback_group_size", 0),
        ("max_feedback_length", 0),
        ("feedback_max_concurrency", 0),
        ("fco_weight", -0.1),
        ("fco_tau", 0.0),
        ("fco_margin", -1.0),
        ("fco_pairing", "index"),
        ("feedback_provider", "gpt"),
        ("feedback_turns_decay_steps", 0),
        ("min_feedback_turns", 3),
        ("max_feedback_groups_per_step", 0),
        ("feedback_requests_per_minute", 0.0),
        ("feedback_tokens_per_minute", -1.0),
        ("feedback_input_token_price", -1.0),
        ("feedback_checker_max_reports", 0),
        ("feedback_temperature", -0.5),
    ],
)
def test_rejects_bad_values_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        make_config(**{field: value})


def test_rejects_fewer_than_two_generations():
    with pytest.raises(ValueError, match="num_generations"):
        make_config(num_generations=1, per_device_train_batch_size=2)


def test_groups_must_not_straddle_processes(monkeypatch):
    # On 2 processes a generation batch of 2 * 6 = 12 rows holds 3 groups of 4, which GRPOConfig accepts, but the 6
    # rows of each process would split a group in two.
    monkeypatch.setattr(MulFeRLConfig, "world_size", property(lambda self: 2))
    with pytest.raises(ValueError, match=r"per_device_train_batch_size \(6\) \* steps_per_generation \(1\)") as info:
        make_config(per_device_train_batch_size=6, num_generations=4)
    assert "num_generations (4)" in str(info.value)
    config = make_config(per_device_train_batch_size=4, gradient_accumulation_steps=2, num_generations=8)
    assert config.generation_batch_size == 16


def test_all_pairs_fco_requires_one_update_per_generation():
    """The all-pairs surrogate's gradient is computed from the policy of generation time (decision 2)."""
    with pytest.raises(ValueError, match="num_iterations"):
        make_config(num_iterations=2, fco_pairing="all")
    with pytest.raises(ValueError, match="steps_per_generation"):
        make_config(
            per_device_train_batch_size=4, steps_per_generation=2, gradient_accumulation_steps=1, fco_pairing="all"
        )
    # The permutation's pair losses are computed in the loss, exact at every iteration; without FCO either is fine.
    make_config(num_iterations=2)
    make_config(per_device_train_batch_size=4, steps_per_generation=2, gradient_accumulation_steps=1)
    make_config(num_iterations=2, fco_weight=0.0, fco_pairing="all")
    make_config(num_iterations=2, max_feedback_turns=0, fco_pairing="all")


def test_configs_do_not_warn_about_gradient_checkpointing(tmp_path):
    """TRL's base config sets the deprecated `gradient_checkpointing`; ours keep checkpointing on without the warning."""
    import warnings

    from trl_mulferl import IGRPOConfig

    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        for config_class in (MulFeRLConfig, IGRPOConfig):
            config = config_class(output_dir=str(tmp_path), use_cpu=True)
            assert config.activation_checkpointing and config.gradient_checkpointing
            assert not config_class(
                output_dir=str(tmp_path), use_cpu=True, activation_checkpointing=False
            ).gradient_checkpointing


@pytest.mark.parametrize(
    "key",
    [
        "sk-proj-0123456789abcdefSECRET",  # an OpenAI key: no variable name has a hyphen
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",  # a token shaped like a name: a long run of mixed case and digits
        "my key",
    ],
)
def test_a_key_in_feedback_api_key_env_is_refused_without_showing_it(key):
    with pytest.raises(ValueError, match="feedback_api_key_env must be the name") as refused:
        make_config(feedback_api_key_env=key)
    assert key not in str(refused.value) and key.split("_")[-1] not in str(refused.value)
    assert refused.value.__context__ is None


# Keys shaped like variable names: no test of the shape tells them from one, the environment does.
NAME_SHAPED_KEYS = [
    "f3a9c1d2e4b5a6978812c3d4e5f60718",  # Azure's 32 hex digits, starting with a letter
    "a" + "0123456789abcdef" * 3 + "0123456789abcde",  # 64 hex digits
    "AKIAIOSFODNN7EXAMPLE",  # an AWS access key id
    "QWERTYUIOPASDFGHJKLZXCVBNMQWERTYUIOPASDF",  # 40 upper-case letters
    "ghp_abcdefghij_klmnopqrst_uvwxyz012345",  # underscore-joined runs
]


@pytest.mark.parametrize("key", NAME_SHAPED_KEYS, ids=["azure", "hex64", "akia", "upper40", "underscored"])
def test_a_name_shaped_key_in_feedback_api_key_env_is_refused_without_showing_it(key, monkeypatch):
    monkeypatch.delenv(key, raising=False)
    with pytest.raises(ValueError, match="The variable named by feedback_api_key_env is not set") as refused:
        make_config(feedback_api_key_env=key)
    assert key not in str(refused.value) and refused.value.__context__ is None


def test_variable_names_are_accepted_as_feedback_api_key_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "my_feedback_key", "_KEY2", "AZURE_OPENAI_API_KEY_2024"):
        monkeypatch.setenv(name, "sk-the-key")
        assert make_config(feedback_api_key_env=name).feedback_api_key_env == name


def test_feedback_base_url_credentials_are_masked_where_arguments_are_logged_or_saved(tmp_path):
    import pickle

    import torch

    url = "https://alice:pa55wordSECRET@proxy.example.com:8443/v1?api-key=querySECRET&api-version=2024"
    vllm_url = "http://127.0.0.1:8000/v1;key=paramSECRET#api-key=fragmentSECRET"
    config = make_config(feedback_base_url=url, vllm_server_base_url=vllm_url)
    assert config.feedback_base_url == url  # the provider connects with it
    masked = "https://***@proxy.example.com:8443/v1?***"
    assert config.to_dict()["feedback_base_url"] == masked  # wandb's and trackio's config, the JSON dump
    assert config.to_dict()["vllm_server_base_url"] == "http://127.0.0.1:8000/v1;***#***"
    assert config.to_sanitized_dict()["feedback_base_url"] == masked  # TensorBoard's hparams
    torch.save(config, tmp_path / "training_args.bin")  # as Trainer.save_model writes it
    saved = (tmp_path / "training_args.bin").read_bytes() + pickle.dumps(config)
    for shown in (config.to_json_string(), repr(config), str(config), saved.decode("latin-1")):
        assert "SECRET" not in shown and "proxy.example.com:8443" in shown
    assert torch.load(tmp_path / "training_args.bin", weights_only=False).feedback_base_url == masked
    # Every shape a key takes in a URL: only scheme, host, port and path are shown.
    for shape, shown in [
        ("http://127.0.0.1:8000/v1#api-key=SECRET", "http://127.0.0.1:8000/v1#***"),
        ("http://127.0.0.1:8000/v1?SECRET", "http://127.0.0.1:8000/v1?***"),
        ("http://127.0.0.1:8000/v1;key=SECRET", "http://127.0.0.1:8000/v1;***"),
        ("user:SECRET@127.0.0.1:8000/v1", "***@127.0.0.1:8000/v1"),
        ("http://user:pass/SECRET@127.0.0.1/v1", "http://***@127.0.0.1/v1"),
    ]:
        assert make_config(feedback_base_url=shape).to_dict()["feedback_base_url"] == shown
    # Without credentials the URL is kept as it is.
    plain = "http://127.0.0.1:8000/v1"
    assert make_config(feedback_base_url=plain).to_dict()["feedback_base_url"] == plain
