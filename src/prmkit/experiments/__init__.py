"""Experiment recipes: the layers below run end to end, each in one resumable output directory (bench, payoff, sft,
bench problem sets)."""
