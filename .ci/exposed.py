"""`bash .ci/start` asks this before it starts the app: would the server listen beyond this machine without sign-in?
Exit 2 with how to configure sign-in, unless NEPAQA_ALLOW_ANONYMOUS=1 says it is intended. Standard library only
(it runs before the app's environment is installed); the app's own check is lib/app/accounts.py."""
import ipaddress
import os
import sys
import tomllib
from pathlib import Path


def address(args: list[str]) -> str:
    """The address streamlit would bind: the last --server.address given, else .streamlit/config.toml's."""
    found = None
    for i, a in enumerate(args):
        if a == "--server.address" and i + 1 < len(args):
            found = args[i + 1]
        elif a.startswith("--server.address="):
            found = a.split("=", 1)[1]
    if found is not None:
        return found
    if "STREAMLIT_SERVER_ADDRESS" in os.environ:  # streamlit's own environment setting, over its config files
        return os.environ["STREAMLIT_SERVER_ADDRESS"]
    for cfg in (Path(".streamlit/config.toml"), Path.home() / ".streamlit" / "config.toml"):  # the project's first
        if cfg.exists() and "address" in (server := tomllib.loads(cfg.read_text()).get("server", {})):
            return str(server["address"])
    return ""


def local(addr: str) -> bool:
    a = addr.strip().strip("[]")
    try:
        return a == "localhost" or ipaddress.ip_address(a).is_loopback
    except ValueError:
        return False


def sign_in_configured() -> bool:
    for path in (Path(".streamlit/secrets.toml"), Path.home() / ".streamlit" / "secrets.toml"):
        if path.exists() and "auth" in tomllib.loads(path.read_text()):
            return True
    return False


if __name__ == "__main__":
    addr = address(sys.argv[1:])
    if not local(addr) and not sign_in_configured() and os.environ.get("NEPAQA_ALLOW_ANONYMOUS") != "1":
        print(f"error: the app would listen on {addr or 'every network interface'} without sign-in, so anyone who "
              "reaches it could index and delete documents and spend the configured keys. Configure sign-in: add "
              "an [auth] section (OpenID Connect) to .streamlit/secrets.toml; docs/accounts.md has the blocks for "
              "Login.gov, Okta and Entra ID. To share it without sign-in anyway (everyone who reaches it is an "
              "admin), start it with NEPAQA_ALLOW_ANONYMOUS=1.", file=sys.stderr)
        sys.exit(2)
