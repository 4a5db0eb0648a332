"""The bot as bot.compose wires it: the command menus Telegram shows are what the parts
registered (bot.router.Menu), each described in every language, and every command described
for a menu is one the bot answers."""

from __future__ import annotations

from pathlib import Path

from telegram import Bot

from bot.compose import Parts, compose
from bot.router import Menu, Where
from bot.storage import storage_for
from bot.tables import Config
from bot.workers import Workers
from renderers.i18n import Catalog


def _parts(tmp_path: Path) -> Parts:
    bot = Bot("123:offline")  # never called: only the parts are built
    return compose(bot, storage_for(tmp_path / "wiring.sqlite3"), Config(), workers=Workers())


def test_the_menus_are_the_registered_commands_in_order(tmp_path: Path) -> None:
    router = _parts(tmp_path).router
    group, private = router.menu(Menu.GROUP), router.menu(Menu.PRIVATE)
    assert group == [
        *("gouji", "join", "leave", "stop", "hand", "rules", "settings", "help"),
        *("history", "match", "stats", "top", "replay", "record"),
    ]
    assert private == ["start", "hand", "rules", "help"]
    for name in group:  # a group's menu offers only what a group is answered
        assert router.commands[name].where != Where.PRIVATE, name
    for name in private:
        assert router.commands[name].where != Where.GROUP, name


def test_every_command_in_a_menu_is_described_and_every_description_answered(
    tmp_path: Path,
) -> None:
    router = _parts(tmp_path).router
    shown = {*router.menu(Menu.GROUP), *router.menu(Menu.PRIVATE)}
    for lang in ("zh", "en"):
        described = {
            k.removeprefix("bot.cmd.")
            for k in Catalog.load(lang).messages
            if k.startswith("bot.cmd.")
        }
        assert shown <= described, (lang, sorted(shown - described))
        assert described <= set(router.commands), (lang, sorted(described - set(router.commands)))
