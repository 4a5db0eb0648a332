"""A player's hand buttons: cards chosen, a hint, 托管, and the action a press submits (applied
by :class:`bot.moves.Moves`)."""

from __future__ import annotations

import html
import logging
import re

from engine.actions import Action, IllegalAction
from engine.cards import fmt, parse
from engine.vocab import Ask, Do
from renderers import card_text, hint_text, refusal_text, t
from renderers.terms import failed_rank

from .buttons import HandOp, Kind
from .chats import Chats
from .handkeys import Pending, caution_text, duty_shortfall, moves, one_taps, situation, tap
from .keyboards import EMPTY_SELECTION, option_for
from .model import AiLevel, TableStatus
from .moves import Moves
from .outbox import Answer, Out
from .router import CommandCall, Menu, Press, Router
from .table import Table
from .tables import Tables
from .tenure import Poster

log = logging.getLogger("gouji.play")
UNTIMED = (HandOp.AUTO, HandOp.AUTO_YES, HandOp.CANCEL)  # 托管 and its confirmation: any time


class Play:
    """Presses on hand messages; what they submit is applied by ``moves``."""

    def __init__(self, tables: Tables, chats: Chats, moves: Moves, *, poster: Poster) -> None:
        self.tables = tables
        self.chats = chats
        self.sender = poster
        self.moves = moves

    def register(self, router: Router) -> None:
        router.command("hand", self._cmd_hand, menu=Menu.BOTH)
        router.guard(Kind.HAND, self._guard)
        router.on(Kind.HAND, HandOp.AUTO, self._auto)
        router.on(Kind.HAND, HandOp.AUTO_YES, self._auto_yes)
        router.on(Kind.HAND, HandOp.CANCEL, self._cancel)
        for op in (HandOp.RANK, HandOp.COUNT, HandOp.EXTRA, HandOp.RETURN_RANK):
            router.on(Kind.HAND, op, self._choose)
        router.on(Kind.HAND, HandOp.CLEAR, self._clear)
        router.on(Kind.HAND, HandOp.HINT, self._hint)
        submitting = (HandOp.PLAY, HandOp.QUICK, HandOp.CONFIRM, HandOp.SURE, HandOp.OPTION)
        for op in (*submitting, HandOp.PASS, HandOp.YIELD):
            router.on(Kind.HAND, op, self._submit)

    # -- a player's buttons ------------------------------------------------------------------

    def _guard(self, table: Table, p: Press) -> Answer | None:
        """A hand button counts for the match as it is: the table plays at its version, and
        only 托管 (and its confirmation) may be pressed at any time, whoever's turn it is."""
        assert p.seat is not None
        lang = table.seat_lang(p.seat)
        m = table.match
        if m is None or table.status != TableStatus.PLAYING:
            return Answer(t(lang, "bot.stale"))
        if p.cb.op in UNTIMED:
            return None
        if p.cb.version != m.version:
            return Answer(t(lang, "bot.stale"))
        ask = m.asked()
        if ask is None or ask[0] != p.seat:
            return Answer(t(lang, "bot.not_your_turn"))
        return None

    async def _auto(self, table: Table, p: Press) -> Answer:
        """托管: off at once; on only after 确认托管 (a mis-tap beside the cards must not hand
        the seat to the AI in front of the group)."""
        seat = _seat(p)
        s = table.st.seats[seat]
        assert s is not None
        if s.auto:
            return await self._auto_switch(table, seat)
        waiting = table.confirm.get(seat)
        if waiting is not None and not waiting.is_auto:
            table.hinted.pop(seat, None)  # the play waiting for its confirmation: dropped
        table.confirm[seat] = Pending.auto(table.version)
        self.moves.post_hand(table, seat)
        return Answer(t(table.seat_lang(seat), "taps.auto.ask"))

    async def _auto_yes(self, table: Table, p: Press) -> Answer:
        """确认托管: the AI plays the seat from now on."""
        seat = _seat(p)
        s = table.st.seats[seat]
        assert s is not None
        pending = table.confirm.get(seat)
        if s.auto or pending is None or not pending.is_auto:
            return Answer(t(table.seat_lang(seat), "bot.stale"))
        del table.confirm[seat]
        return await self._auto_switch(table, seat)

    async def _cancel(self, table: Table, p: Press) -> Answer:
        """取消: the confirmation asked for (托管, or a play tapped once) is dropped."""
        seat = _seat(p)
        pending = table.confirm.pop(seat, None)
        if pending is not None and not pending.is_auto:
            table.hinted.pop(seat, None)  # its reason, shown in the hinted line
        self.moves.post_hand(table, seat)
        return Answer(t(table.seat_lang(seat), "taps.cancelled"))

    async def _auto_switch(self, table: Table, seat: int) -> Answer:
        """托管 on or off."""
        s = table.st.seats[seat]
        assert s is not None
        lang = table.seat_lang(seat)
        s.auto = not s.auto
        s.timeouts = 0
        if not s.auto:
            self.moves.returned(table, seat)
        await self.tables.save(table)
        self.moves.post_hand(table, seat)
        key = "bot.auto_on" if s.auto else "bot.auto_off"
        self.sender.post(
            Out(
                table.chat_id,
                t(table.lang, key, name=table.name(seat)),
                None,
                table.thread_id,
                silent=True,
            )
        )
        self.moves.schedule(table)
        return Answer(t(lang, "bot.auto_on_me" if s.auto else "bot.auto_off_me"))

    async def _choose(self, table: Table, p: Press) -> Answer:
        """A rank, a count, 2s or jokers tapped: cards chosen for a play (bot.handkeys), or a
        rank for 还贡 (§11)."""
        seat = _seat(p)
        m = table.match
        assert m is not None
        view = m.view(seat)
        hand = parse(view.hand or "")
        sel = table.selection.get(seat, EMPTY_SELECTION)
        if p.cb.op != HandOp.RETURN_RANK:
            legal = m.choices(seat)
            move = (HandOp(p.cb.op), p.cb.arg)
            if move not in moves(legal, hand, sel):
                return Answer(t(table.seat_lang(seat), "bot.stale"))
            table.selection[seat] = tap(legal, hand, sel, *move)
            self.moves.post_hand(table, seat)
            return Answer()
        rank = p.cb.rank
        if not hand[rank]:
            return Answer(t(table.seat_lang(seat), "bot.bad_button"))
        # 还贡: one card more of that rank, up to what may be returned
        cap = table.returnable(m.choices(seat))[rank]
        n = view.returning[1] if view.returning else 0
        new = list(sel)
        new[rank] = 0 if sel[rank] >= cap or sum(sel) >= n else sel[rank] + 1
        table.selection[seat] = tuple(new)
        self.moves.post_hand(table, seat)
        return Answer()

    async def _clear(self, table: Table, p: Press) -> Answer:
        seat = _seat(p)
        table.selection.pop(seat, None)
        self.moves.post_hand(table, seat)
        return Answer()

    async def _hint(self, table: Table, p: Press) -> Answer:
        """提示: what the normal AI would do, chosen for the player to play or change."""
        seat = _seat(p)
        m = table.match
        assert m is not None
        legal = m.choices(seat)
        d = await self.moves.decide(table, seat, AiLevel.NORMAL)
        cards = d.action.cards
        declines = legal.ask == Ask.BURN and d.action.do == Do.PASS
        lang = table.seat_lang(seat)
        text = hint_text(d.action.do, cards, d.reason, d.params, lang, claim=declines)
        if cards:
            table.selection[seat] = parse(cards)
        table.hinted[seat] = text  # the catalog's sentence starts with 💡
        self.moves.post_hand(table, seat)
        return Answer(html.unescape(re.sub(r"<[^>]+>", "", text))[:190])  # a toast: plain

    def _action_of(self, table: Table, p: Press) -> Action | Answer:
        """The action a submitting button stands for, or the answer refusing it."""
        seat = _seat(p)
        m = table.match
        assert m is not None
        lang = table.seat_lang(seat)
        legal = m.choices(seat)
        match p.cb.op:
            case HandOp.PLAY:
                sel = table.selection.get(seat, EMPTY_SELECTION)
                if legal.ask != Ask.RETURN:
                    return Action(seat, Do.PLAY, fmt(sel))
                action = option_for(legal, sel)
                if action is None:
                    returning = m.view(seat).returning
                    n = returning[1] if returning else 0
                    return Answer(t(lang, "bot.pick_return", n=n), alert=True)
                return action
            case HandOp.QUICK:
                # only the ▶ plays the keyboard offers (answers to a top, 2s or jokers led)
                quick = one_taps(legal, situation(m, seat))
                if p.cb.index >= len(quick):
                    return Answer(t(lang, "bot.stale"))
                return Action(seat, Do.PLAY, str(quick[p.cb.index]))
            case HandOp.CONFIRM | HandOp.SURE:
                pending = table.confirm.get(seat)
                if pending is None or pending.is_auto or pending.version != m.version:
                    # the confirmation asked for is gone (a 取消 on the way, a restart): the
                    # keyboard as it is now, so that nobody keeps a confirmation that never works
                    self.moves.post_hand(table, seat)
                    return Answer(t(lang, "bot.stale"))
                return Action(seat, Do.PLAY, pending.cards)
            case HandOp.OPTION:
                if p.cb.index >= len(legal.options):
                    return Answer(t(lang, "bot.stale"))
                return legal.options[p.cb.index]
            case HandOp.PASS:
                return Action(seat, Do.PASS)
            case HandOp.YIELD:
                return Action(seat, Do.YIELD)
        return Answer(t(lang, "bot.bad_button"))

    async def _submit(self, table: Table, p: Press) -> Answer:
        """出牌, a ▶ play, a deal-phase answer, 过 or 让牌: the action applied. A burn that
        cannot meet its duty is warned about first and played on 确认 (§7 诈烧); a ▶ play that
        spends 2s or jokers or splits a 够级 (§4) is played on its confirmation too, the reason
        shown above the keyboard until then."""
        seat = _seat(p)
        action = self._action_of(table, p)
        if isinstance(action, Answer):
            return action
        lang = table.seat_lang(seat)
        confirmed = p.cb.op in (HandOp.CONFIRM, HandOp.SURE)
        warning = self._burn_warning(table, action) if not confirmed else None
        why = self._second_tap(table, action) if p.cb.op == HandOp.QUICK else ""
        if (warning is not None or why) and table.match is not None:
            table.confirm[seat] = Pending.play(table.match.version, action.cards)
            table.hinted[seat] = warning or t(lang, "taps.sure.line", why=why)
            self.moves.post_hand(table, seat)
            if warning is not None:
                return Answer(warning, alert=True)
            return Answer(t(lang, "taps.sure.toast", why=why))
        table.confirm.pop(seat, None)
        s = table.st.seats[seat]
        assert s is not None
        s.timeouts = 0
        table.votes.pop(seat, None)  # the player plays: no vote about them stands
        try:
            await self.moves.act(table, action)
        except IllegalAction as e:
            return Answer(refusal_text(e.code, lang, **e.params), alert=True)
        if action.do == Do.PLAY:
            return Answer(t(lang, "bot.played", cards=card_text(action.cards, lang)))
        return Answer(t(lang, f"bot.did.{action.do}"))

    def _second_tap(self, table: Table, action: Action) -> str:
        """Why a ▶ play waits for its confirmation (bot.handkeys.caution), or ""."""
        m = table.match
        if m is None or action.do != Do.PLAY:
            return ""
        hand = parse(m.view(action.seat).hand or "")
        return caution_text(hand, action.cards, table.seat_lang(action.seat))

    def _burn_warning(self, table: Table, action: Action) -> str | None:
        """The warning before a burn (or 反烧) that cannot meet its duty (§7): None for any
        other action."""
        m = table.match
        game = m.game if m is not None else None
        if game is None or action.do != Do.PLAY:
            return None
        if game.burn_feasible(action.seat, action.cards) is not False:
            return None
        top = game.top
        kind = "counter" if top is not None and top.burn else "burn"
        hand = tuple(game.hands[action.seat])
        leads, jokers = duty_shortfall(hand, action.cards, game.rules.bie3)
        lang = table.seat_lang(action.seat)
        bottom = failed_rank(game.status, lang)  # §10: 大落, or 二落 after an earlier 诈烧
        return t(lang, f"taps.{kind}.warn", leads=leads, jokers=jokers, bottom=bottom)

    async def _cmd_hand(self, c: CommandCall) -> None:
        if not await self.moves.resend_hand(c.user):
            lang = await self.chats.lang_of(c.chat_id, c.user)
            self.tables.reply(c.chat_id, c.thread_id, t(lang, "bot.no_hand"))


def _seat(p: Press) -> int:
    assert p.seat is not None  # the router sets it for every hand button
    return p.seat
