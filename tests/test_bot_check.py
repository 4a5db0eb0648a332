"""``python -m bot check`` against the local server in its variants: ready, group privacy off
(advice, still ready), a webhook set, groups not allowed, a refused token."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_bot_startup import SECRET, run_bot

from bot.offline.localapi import LocalBotApi

pytestmark = pytest.mark.e2e


async def test_check_says_what_to_fix(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite3")
    async with LocalBotApi() as api:
        env = {"TELEGRAM_BOT_TOKEN": api.token, "TELEGRAM_BASE_URL": api.base_url, "GOUJI_DB": db}
        code, out = await run_bot(env, "check")
        assert code == 0, out
        assert "✓ the token works: @gouji_bot" in out and "✓ no webhook" in out
        assert "✓ group privacy is on" in out and "! no commands registered yet" in out
        assert api.token not in out

        api.world.privacy = False
        code, out = await run_bot(env, "check")
        assert code == 0 and "! group privacy is off" in out  # advice only

        api.world.webhook_url = "https://elsewhere.example/hook"
        code, out = await run_bot(env, "check")
        assert code == 1 and "✗ a webhook is set (https://elsewhere.example/hook)" in out
        # a webhook deployment's own webhook is as it should be
        hooked = {**env, "TELEGRAM_WEBHOOK_URL": "https://elsewhere.example/hook"}
        code, out = await run_bot(hooked, "check")
        assert code == 0 and "✓ the webhook is this deployment's" in out, out
        api.world.webhook_url = ""
        code, out = await run_bot(hooked, "check")
        assert code == 0 and "✓ no webhook is set yet" in out

        api.world.can_join_groups = False
        code, out = await run_bot(env, "check")
        assert code == 1 and "/setjoingroups" in out
        api.world.can_join_groups = True

        code, out = await run_bot({**env, "TELEGRAM_BOT_TOKEN": SECRET}, "check")
        assert code == 1 and "refused the token" in out and SECRET not in out
