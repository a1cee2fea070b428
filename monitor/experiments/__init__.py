"""Experiments: a summarizer run on every item of a pinned dataset version, each call an ordinary summarization
span tagged with the experiment and the item, judged by the active judges and the reference rubrics, and compared
with another experiment item by item."""
