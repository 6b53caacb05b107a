"""Model loading: the embedded default (`smollm2-135m`) and any local Hugging Face directory."""

from prmkit.models.loading import DEFAULT_MODEL, ModelNotFound, load_model, resolve_model

__all__ = ["DEFAULT_MODEL", "ModelNotFound", "load_model", "resolve_model"]
