"""Configuration, read once from the environment at start (README "Configuration")."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_DB = "data/gouji.sqlite3"


@dataclass(frozen=True)
class Settings:
    token: str | None = field(default=None, repr=False)  # never printed or logged
    base_url: str | None = None
    db_path: str = DEFAULT_DB
    lang: str = "zh"

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        lang = env.get("GOUJI_LANG", "zh").strip().lower() or "zh"
        return Settings(
            token=env.get("TELEGRAM_BOT_TOKEN") or None,
            base_url=env.get("TELEGRAM_BASE_URL") or None,
            db_path=env.get("GOUJI_DB") or DEFAULT_DB,
            lang=lang if lang in ("zh", "en") else "zh",
        )
