"""What a server's rejection says about its window, in the forms the servers write it (lib/models/server_facts.py)."""
from __future__ import annotations

import pytest

from lib.models.server_facts import stated_window

SAID = [
    ("This model's maximum context length is 4096 tokens. However, you requested 6381 tokens (6371 in the "
     "messages, 10 in the completion). Please reduce the length of the messages or completion.", (4096, 6381)),
    ("This model's maximum context length is 2048 tokens. However, you requested 2100 tokens", (2048, 2100)),
    ("The decoder prompt (5000 tokens) is longer than the maximum model length of 4096. Make sure that", (4096, 5000)),
    ("request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it", (4096, 5000)),
    ("the request exceeds the available context size, try increasing it", None),  # its body's n_ctx says it
    ("requested 5000 tokens exceeds the context window; batch size 512", None),  # 512 is no window
    ("Input should be 'text' or 'json_object'", None),
    (None, None),
]


@pytest.mark.parametrize(("message", "window"), SAID)
def test_the_window_a_rejection_states(message, window):
    assert stated_window(message) == window
