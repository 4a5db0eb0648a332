"""The deployment samples (docs/deploy/) name only variables the bot reads, and the environment
file lists every one it reads: a variable renamed in bot/environment.py fails here, not in a
deployment."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "docs" / "deploy"
# read by compose.yaml and Caddy only, never by the bot
COMPOSE_ONLY = {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB", "WEBHOOK_HOST"}


def bot_variables() -> set[str]:
    source = (ROOT / "bot" / "environment.py").read_text()
    return set(re.findall(r"""env(?:\.get\(|\[)"([A-Z][A-Z0-9_]+)\"""", source))


def env_example_variables() -> set[str]:
    text = (DEPLOY / "env.example").read_text()
    return set(re.findall(r"^#?([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))


def test_the_environment_file_lists_every_variable_the_bot_reads() -> None:
    read = bot_variables()
    assert {"TELEGRAM_BOT_TOKEN", "GOUJI_DB", "TELEGRAM_WEBHOOK_URL"} <= read
    listed = env_example_variables()
    per_process = {"GOUJI_WEBHOOK_PORT", "GOUJI_WEBHOOK_LISTEN"}  # set by compose / the unit
    assert read - per_process <= listed
    assert listed - COMPOSE_ONLY <= read  # nothing the bot would not read


def test_compose_and_units_name_only_known_variables() -> None:
    known = bot_variables() | COMPOSE_ONLY
    compose = (DEPLOY / "compose.yaml").read_text()
    interpolated = set(re.findall(r"\$\{([A-Z][A-Z0-9_]+)", compose))
    assert interpolated and interpolated <= known
    keys = set(re.findall(r"^\s+([A-Z][A-Z0-9_]+):", compose, flags=re.MULTILINE))
    assert keys <= known
    unit = (DEPLOY / "systemd" / "gouji@.service").read_text()
    set_by_unit = set(re.findall(r"^Environment=([A-Z][A-Z0-9_]+)=", unit, flags=re.MULTILINE))
    assert set_by_unit == {"GOUJI_WEBHOOK_PORT", "GOUJI_WEBHOOK_LISTEN", "TMPDIR"}
    caddy = (DEPLOY / "Caddyfile").read_text()
    assert set(re.findall(r"\{\$([A-Z][A-Z0-9_]+)\}", caddy)) <= COMPOSE_ONLY
