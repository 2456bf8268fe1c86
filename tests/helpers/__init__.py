"""What the tests share: the tiny model, settings, scripted rewards and providers, servers, and the scripts that
`accelerate launch` runs (`scripts/`, with the engines' configs in `engine_configs/`)."""
