"""The sentence-model runtime that scoring and clustering both use: the backends (torch, and ONNX Runtime with
int8 weights), the int8 export and its cache, the model's intra-op threads, and helper processes that encode
beside this one.

    from sumwatch.clustering.sentence_model.embedder import Embedder      # loads the model on first encode
    from sumwatch.clustering.sentence_model.backend import ModelBackend   # standard library only

    embedder.py     Embedder, DEFAULT_MODEL, resolve_model: the model behind a text-keyed cache
    backend.py      ModelBackend: what runs the model (the settings name it without loading numpy)
    onnx_model.py   the int8 ONNX export, its cache and the ONNX Runtime session
    export_onnx.py  ``python -m sumwatch.clustering.sentence_model.export_onnx DIR``: an image's build step
    model_pool.py   helper processes, and how many a machine's CPUs allow

It lives in clustering because that is the lowest room allowed to import torch and numpy: the tracer, below
it, stays OpenTelemetry-only. This file imports nothing, so naming a module here loads only that module;
numpy, torch and onnxruntime load on the first encode.
"""
