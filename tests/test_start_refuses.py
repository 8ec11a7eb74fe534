"""`bash .ci/start` on a network address without sign-in exits with how to configure it (issue 45), unless
NEPAQA_ALLOW_ANONYMOUS=1 says that is intended; on this machine's own address it goes on."""
import os
import subprocess
import sys

from lib.app import accounts
from tests.conftest import ROOT


def _env(tmp_path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NEPAQA_ALLOW_ANONYMOUS", "STREAMLIT_SERVER_ADDRESS")}
    return {**env, "HOME": str(tmp_path), **more}  # no ~/.streamlit of this machine's user


def test_start_refuses_a_network_address_without_sign_in(tmp_path):
    done = subprocess.run(["bash", ".ci/start", "--server.address", "0.0.0.0"], cwd=ROOT, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("error: the app would listen on 0.0.0.0 without sign-in")
    assert "[auth]" in done.stderr and "docs/accounts.md" in done.stderr and "NEPAQA_ALLOW_ANONYMOUS=1" in done.stderr


def test_the_check_lets_through_what_is_local_or_intended(tmp_path):
    check = [sys.executable, ".ci/exposed.py"]
    run = lambda *a, **env: subprocess.run([*check, *a], cwd=ROOT, env=_env(tmp_path, **env), capture_output=True,  # noqa: E731
                                           text=True, timeout=60).returncode
    assert run() == 0  # .streamlit/config.toml: 127.0.0.1
    assert run("--server.address=localhost") == 0 and run("--server.address", "::1") == 0
    assert run("--server.address", "10.0.0.5") == 2 and run("--server.address", "") == 2  # "" is every interface
    assert run(STREAMLIT_SERVER_ADDRESS="0.0.0.0") == 2
    assert run("--server.address", "0.0.0.0", NEPAQA_ALLOW_ANONYMOUS="1") == 0
    # the app's own check says the same
    assert accounts.is_local_address("127.0.0.1") and accounts.is_local_address("[::1]")
    assert not accounts.is_local_address("0.0.0.0") and not accounts.is_local_address("")
