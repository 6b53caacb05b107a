"""The same work on the CPU and on the GPU (`PRMKIT_DEVICE`): where the models ran and how far the outputs differ.

A tiny random Llama (2 layers, the unit tests' model) does, on each device: sampling (`generate`), rollouts after
step prefixes twice (the second time through the KV prefix cache), the information terms of IG/MCNIG (O(N) packed
pass and the naive re-encoding), reward-model step scores (a checkpoint saved and loaded), and beam search with
best-of-N (`prmkit search`). Printed: the device each model sat on, the share of sampled texts that agree token
for token, and the largest difference of each number. Without a GPU it compares the CPU with itself (all equal).

    python benchmarks/device_parity.py            # on a machine with a GPU
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def run_on(device: str, base: Path, rm_dir: Path, out: Path, tag: str) -> dict[str, Any]:
    """Every measured output of one device."""
    os.environ["PRMKIT_DEVICE"] = device
    from prmkit.generate.backends import BackendOptions, SamplingConfig
    from prmkit.generate.backends.hf import TransformersBackend
    from prmkit.label.information_scorer import InformationScorer
    from prmkit.models.loading import load_model
    from prmkit.models.reward import RewardModel
    from prmkit.search import BeamConfig, run_search

    load_model.cache_clear()
    backend = TransformersBackend(str(base), BackendOptions(batch_size=16, prefix_cache=True))
    placed = {"policy": str(backend.model.device)}
    prompts = ["Q: Tom has 3 apples and buys 4 more. How many apples?\nA:", "Q: 12 - 5 = ?\nA:"]
    sampled = backend.generate(prompts, SamplingConfig(n=4, temperature=1.0, top_p=0.95, max_new_tokens=24, seed=3))
    rendered = [backend.render(p) + " We compute" for p in prompts]
    rollouts = [backend.generate_rendered(rendered, SamplingConfig(n=4, temperature=0.7, top_p=0.95,
                                                                   max_new_tokens=16, seed=5), [11, 12])
                for _ in range(2)]  # the second pass reads the prefix cache
    model, tok = load_model(str(base))
    scorer = InformationScorer(model, tok, "Question: {question}\nAnswer:", " The answer is {answer}.")
    steps = [["3 + 4 = 7.", "So 7 apples."], ["3 + 4 = 8.", "So 8."]]
    info = scorer.information("Tom has 3 apples and buys 4 more.", steps, ["7", "8"])
    naive = scorer.naive_information("Tom has 3 apples and buys 4 more.", steps[0], ["7", "8"], batch_size=2)
    rm = RewardModel.from_pretrained(rm_dir)
    placed["reward model"] = str(rm.model.device)
    scores = rm.step_probs([("Tom has 3 apples and buys 4 more.", s) for s in steps])
    config = BeamConfig(input="demo", limit=2, model=str(base), prm=str(rm_dir), k=4, width=2, max_steps=3,
                        max_new_tokens=12, temperature=0.7, batch_size=16)
    pattern = str(out / f"{tag}_{{method}}.jsonl")
    run_search(config, ["beam", "bon"], pattern, progress=False)
    search = {m: [json.loads(line) for line in Path(pattern.replace("{method}", m)).read_text().splitlines()]
              for m in ("beam", "bon")}
    return {"placed": placed, "sampled": [[c.text for c in row] for row in sampled],
            "rollouts": [[[c.text for c in row] for row in r] for r in rollouts], "info": info, "naive": naive,
            "scores": scores, "search": search}


def _flat(x: Any) -> list[float]:
    return [v for item in x for v in _flat(item)] if isinstance(x, list) else [float(x)]


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    import torch

    from helpers import make_tiny_base
    from prmkit.models.reward import RewardModel, RewardModelConfig

    gpu = "cuda" if torch.cuda.is_available() else None
    print(f"torch {torch.__version__}, GPU: {torch.cuda.get_device_name(0) if gpu else 'none (CPU against itself)'}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        base = make_tiny_base(root / "base", context=1024)
        RewardModel.from_base(str(base), RewardModelConfig(kind="prm")).save_pretrained(root / "rm")
        cpu = run_on("cpu", base, root / "rm", root, "first")
        other = run_on(gpu or "cpu", base, root / "rm", root, "second")
    print(f"cpu run: models on {cpu['placed']}; {gpu or 'cpu'} run: models on {other['placed']}")
    texts = [(a, b) for x, y in [(cpu["sampled"], other["sampled"]), *zip(cpu["rollouts"], other["rollouts"],
                                                                          strict=True)]
             for rx, ry in zip(x, y, strict=True) for a, b in zip(rx, ry, strict=True)]
    same = sum(a == b for a, b in texts)
    print(f"sampled texts equal token for token: {same}/{len(texts)} (generate, and rollouts before/after the cache)")
    for name in ("info", "naive", "scores"):
        diff = max(abs(a - b) for a, b in zip(_flat(cpu[name]), _flat(other[name]), strict=True))
        print(f"{name}: largest |cpu - {gpu or 'cpu'}| = {diff:.3g} over {len(_flat(cpu[name]))} numbers")
    for m in ("beam", "bon"):
        a, b = cpu["search"][m], other["search"][m]
        agree = sum(x["steps"] == y["steps"] for x, y in zip(a, b, strict=True))
        tokens = [sum(x["tokens_generated"] for x in run) for run in (a, b)]
        print(f"search {m}: chosen traces equal on {agree}/{len(a)} problems; tokens {tokens[0]} vs {tokens[1]}")


if __name__ == "__main__":
    main()
