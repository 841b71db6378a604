"""``python -m summarizer._llama_server ARGS``: llama-cpp-python's server (``python -m llama_cpp.server ARGS``)
with llama.cpp's extra weight buffers off.

llama.cpp repacks a model's weights into extra buffer types for the CPU it runs on. On a CPU with AMX (Intel
Sapphire Rapids and later) its AMX matrix multiplication crashed the server — SIGSEGV in
``ggml_backend_amx_mul_mat`` on any prompt of more than one token, llama-cpp-python 0.3.36 built on the machine —
on the 2-core machines this project is tested on. The server has no option for it, so the model's default
parameters are changed before it loads one (``llama_model_params.use_extra_bufts = False``): the weights are
used as the GGUF file stores them, on every CPU.
"""

from __future__ import annotations

import runpy

import llama_cpp.llama_cpp as native

_defaults = native.llama_model_default_params


def _model_params():
    params = _defaults()
    params.use_extra_bufts = False
    return params


native.llama_model_default_params = _model_params
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
