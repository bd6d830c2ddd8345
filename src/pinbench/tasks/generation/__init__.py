"""Version-conditioned generation (GitChameleon 1.0 and 2.0, pinbench's own benchmark): the
problem model, its dataset loaders, prompts, answer extraction and the task."""
