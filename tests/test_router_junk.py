"""What the router says to a press of junk is what happened (docs/rules-free product rule:
every sentence the bot says agrees with what it does): 「点得太快了」 only to one who pressed
faster than their own budget allows; else what the press was — an old message's button, or
none of the bot's."""

from __future__ import annotations

from typing import Any, cast

from bot.budget import Budgets, Rate
from bot.buttons import Callback, Kind, LobbyOp
from bot.router import Members, Router
from bot.tables import UserInfo
from renderers import t

LOBBY_GO = Callback(Kind.LOBBY, 7, 0, LobbyOp.GO).encode()


class Anyone:
    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return False

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        return True


async def test_junk_is_told_what_it_is_until_its_presser_is_over_their_own_budget() -> None:
    clock = [0.0]
    budgets = Budgets(user=Rate(per_s=3.0, burst=10), clock=lambda: clock[0])
    router = Router(cast(Any, object()), budgets)  # junk never reaches a table
    me = UserInfo(42, "甲", lang="zh")
    members: Members = Anyone()
    said: list[str] = []
    for k in range(12):  # at once: ten in the presser's budget, then two past it
        data, offered = (LOBBY_GO, frozenset[str]()) if k % 2 else ("x", None)
        answer = await router.press(data, me, -1, None, members, 5, offered)
        said.append(answer.text)
    old, unknown, fast = t("zh", "bot.stale"), t("zh", "bot.bad_button"), t("zh", "bot.slow_down")
    # past the junk presses intake would answer (five), still told what they are
    assert said[:10] == [unknown, old] * 5
    assert said[10:] == [fast, fast]  # over their own budget: tapping too fast, truly
    clock[0] += 60.0  # a while later, an old button again: told it is old
    assert (await router.press(LOBBY_GO, me, -1, None, members, 5, frozenset())).text == old
