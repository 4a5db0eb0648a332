"""Configuration, read once from the environment at start (README "Configuration").

Four settings matter in production (``TELEGRAM_BOT_TOKEN``, ``TELEGRAM_BASE_URL``, ``GOUJI_DB``,
``GOUJI_LANG``); the others tune pace and randomness for tests, demos and benches.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_DB = "data/gouji.sqlite3"


@dataclass(frozen=True)
class Environment:
    token: str | None = field(default=None, repr=False)  # never printed or logged
    base_url: str | None = None
    db_path: str = DEFAULT_DB  # GOUJI_DB: a SQLite file, or a postgresql:// URL
    lang: str = "zh"
    seed: int | None = None  # GOUJI_SEED: reproducible deals (tests, demos)
    ai_delay: float = 1.2  # GOUJI_AI_DELAY: seconds between AI moves
    group_pace: float = 3.0  # GOUJI_PACE "group,private": seconds between calls to one chat
    private_pace: float = 1.0  # Telegram: about one message a second to one private chat
    turn_s: float | None = None  # GOUJI_TURN_S: overrides every chat's turn timer
    # GOUJI_PASS_THINK: seconds a seat that cannot beat is shown thinking (default: 1.5–4 s)
    pass_think_s: float | None = None
    review_s: float | None = 60.0  # GOUJI_REVIEW_S: the 复盘's work per game; 0: no 复盘
    processes: int = 2  # GOUJI_WORKERS: processes drawing pictures and running the hard AI
    # Webhook mode (polling without): the public HTTPS URL Telegram posts updates to, where the
    # bot's own server listens behind it, and the secret every delivery must carry.
    webhook_url: str | None = None  # TELEGRAM_WEBHOOK_URL
    webhook_listen: str = "0.0.0.0"  # GOUJI_WEBHOOK_LISTEN
    webhook_port: int = 8080  # GOUJI_WEBHOOK_PORT
    webhook_secret: str | None = field(default=None, repr=False)  # TELEGRAM_WEBHOOK_SECRET
    memreport: str | None = None  # GOUJI_MEMREPORT: memory by owner written here on SIGUSR1
    process: str = ""  # GOUJI_PROCESS: this process's name among several (in its id and logs)

    def heartbeat_of(self) -> str:
        """What tells this process's heartbeat file from its neighbours' on one machine (bot.
        health): several processes share one database, each in webhook mode on a port of its
        own; a polling process is the database's one."""
        return str(self.webhook_port) if self.webhook_url else ""

    def secret(self) -> str:
        """The webhook's secret token: TELEGRAM_WEBHOOK_SECRET, or one derived from the bot's
        token (the same in every process of the bot; it tells nothing of the token)."""
        if self.webhook_secret:
            return self.webhook_secret
        assert self.token
        return hashlib.sha256(b"gouji-webhook:" + self.token.encode()).hexdigest()[:48]

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None) -> Environment:
        env = os.environ if env is None else env
        lang = env.get("GOUJI_LANG", "zh").strip().lower() or "zh"
        pace = [_float(x, 0.0) for x in env.get("GOUJI_PACE", "").split(",") if x.strip()]
        return Environment(
            token=env.get("TELEGRAM_BOT_TOKEN") or None,
            base_url=env.get("TELEGRAM_BASE_URL") or None,
            db_path=env.get("GOUJI_DB") or DEFAULT_DB,
            lang=lang if lang in ("zh", "en") else "zh",
            seed=int(env["GOUJI_SEED"]) if env.get("GOUJI_SEED", "").isdigit() else None,
            ai_delay=_float(env.get("GOUJI_AI_DELAY"), 1.2),
            group_pace=pace[0] if pace else 3.0,
            private_pace=pace[1] if len(pace) > 1 else 1.0,
            turn_s=_float(env.get("GOUJI_TURN_S"), 0.0) or None,
            pass_think_s=_float(env["GOUJI_PASS_THINK"], 0.0)
            if env.get("GOUJI_PASS_THINK", "").strip()
            else None,
            review_s=_float(env.get("GOUJI_REVIEW_S"), 60.0) or None,
            processes=int(env["GOUJI_WORKERS"]) if env.get("GOUJI_WORKERS", "").isdigit() else 2,
            webhook_url=env.get("TELEGRAM_WEBHOOK_URL") or None,
            webhook_listen=env.get("GOUJI_WEBHOOK_LISTEN") or "0.0.0.0",
            webhook_port=int(port)
            if (port := env.get("GOUJI_WEBHOOK_PORT", "")).isdigit()
            else 8080,
            webhook_secret=env.get("TELEGRAM_WEBHOOK_SECRET") or None,
            memreport=env.get("GOUJI_MEMREPORT") or None,
            process=env.get("GOUJI_PROCESS", ""),
        )


def _int(text: str | None, default: int) -> int:
    return int(text) if text and text.isdigit() else default


def _float(text: str | None, default: float) -> float:
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if value >= 0 else default
