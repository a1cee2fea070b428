"""Scoring: the sampler that picks unscored summarization spans, and the judge cascade built from settings."""
