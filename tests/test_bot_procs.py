"""Several ``python -m bot`` processes on one PostgreSQL database behind a round-robin forwarder,
the local server delivering every update by webhook (several at once, each chat's in order):
eight six-player games of simulated players played to their end while one process is killed
(SIGKILL) and restarted and another stopped (SIGTERM) and restarted. Every game ends, its stored
actions replay without a gap, each action once, and its group heard each cheer its record holds
— one more only for a message whose call a kill struck on its way.

A message whose call a kill struck on its way may arrive twice (nobody can tell whether
Telegram got it): the game-over message too, at most once more a kill."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from botkit import plain
from test_bot_kill import announcements

from bot import storage as S
from bot.buttons import Kind, LobbyOp, OverOp
from bot.chats import Chats
from bot.deployment import deployment_for
from bot.offline.bench import _lobby_shown, _NoOutput, _stored_versions, _table
from bot.offline.botprocess import until
from bot.offline.cluster import BotCluster
from bot.offline.localapi import LocalBotApi, RateLimits, SimGroup, SimUser
from bot.offline.pgcluster import PgCluster
from bot.offline.simplayers import SimPlayer, buttons_of, has_button, lobby_message, press_lobby
from bot.tables import Config, Tables
from engine.events import Event
from engine.match import Match
from renderers import Transcript

pytestmark = [
    pytest.mark.e2e,  # the bot in processes of its own, through the local server
    # aiohttp (the local server) parsing an upload split at some chunk boundary: a warning of
    # its own internals, which would make that call fail with a 500 under "error"
    pytest.mark.filterwarnings("ignore:unread_data:DeprecationWarning"),
]

GAMES = 8
SEED = 41
KNOBS = {
    "GOUJI_SEED": str(SEED),
    "GOUJI_AI_DELAY": "0",
    "GOUJI_PACE": "0.2,0",  # the group paced (cheers wait in its queue), private chats not
    "GOUJI_TURN_S": "3600",  # no turn timer: every action is a simulated player's
    "GOUJI_PASS_THINK": "0",  # a seat that cannot beat passes at once
    "GOUJI_REVIEW_S": "0",  # no 复盘: it would keep the worker from drawing the next hands
    "GOUJI_WORKERS": "1",
}
# a lobby press shown: its edit, paced in the group, comes within a second or two here, even at
# load; a loaded full run can take far longer (an action took 11-20 s there, once 43 s)
SEAT_WAIT_S = 60.0
# a game that stores no action for this long is stalled (a prompt lost): measured from its last
# action, not from the start, so that a loaded machine (a restart taking 15 s, the games
# crawling at load 30 on 2 cores) is not taken for a lost prompt
# (waits seen at load 25-30: 11-20 s, once 43 s, a restart alone taking 15 s)
STALL_S = 90.0
DEADLINE_S = 1200.0  # and any game still going then
START_S = 30.0  # a lobby still open this long after the last table started: its press was lost
KILL_AT, TERM_AT = 0.3, 0.6  # of the actions a game takes (about: KNOWN_GAME_LENGTH)
KNOWN_GAME_LENGTH = 100


@dataclass
class Disruptions:
    """What happened to the processes while the games were played."""

    kills: int = 0
    terms: int = 0
    at: list[tuple[str, int, int]] = field(default_factory=list)  # (what, process, actions)


def over(api: LocalBotApi, group: SimGroup) -> bool:
    """The game-over message is in the group (its 再来一局 button)."""
    return any(has_button(m, Kind.OVER, OverOp.AGAIN) for m in api.messages(group.id))


def shown(api: LocalBotApi, group: SimGroup) -> list[str]:
    """Every text the group was shown, each version of each message."""
    return [
        plain(t) for m in api.messages(group.id, include_deleted=True) for t in [*m.history, m.text]
    ]


def short(texts: Iterable[str] | Counter[str], width: int = 48) -> str:
    """Texts (a Counter's with their counts) as one short line for a message."""
    counts = texts.items() if isinstance(texts, Counter) else ((t, 1) for t in texts)
    return "; ".join(
        repr(t if len(t) <= width else t[: width - 1] + "…") + (f" ×{n}" if n != 1 else "")
        for t, n in counts
    )


def asked(players: list[SimPlayer]) -> str:
    """What a stalled table's players are asked (their hand message's buttons) and their last
    presses: which prompt was lost."""
    parts = []
    for p in players:
        msg = p.hand_message()
        if msg is not None:
            ops = ",".join(str(cb.op) for cb in buttons_of(msg))
            parts.append(f"{p.user.id} asked by {msg.message_id}.{msg.edits} [{ops}]")
        if p.pressed:
            parts.append(f"{p.user.id} pressed {p.pressed[-3:]}")
    return "; ".join(parts) or "nobody asked anything"


def log_digest(log: str, top: int = 12) -> str:
    """The bot logs' warnings and errors, by kind (numbers left out), the most frequent first:
    what the processes met (flood waits, timeouts, deliveries moved, a stop leaving messages)."""
    kinds = Counter(
        re.sub(r"-?\d+(\.\d+)?", "N", line.split(" ", 3)[3][:100])
        for line in log.splitlines()
        if (" WARNING " in line or " ERROR " in line) and len(line.split(" ", 3)) == 4
    )
    return "\n".join(f"  {n} × {k}" for k, n in kinds.most_common(top)) or "  none"


async def play_to_end(
    api: LocalBotApi, db: S.SqlStorage, seated: list[tuple[SimGroup, list[SimUser]]]
) -> dict[int, str]:
    """Simulated players at every table until its game is over; the tables that stored no
    action for :data:`STALL_S`, or were still going at :data:`DEADLINE_S` (stalled), each with
    what it was waiting for."""
    stalled: dict[int, str] = {}
    begun = time.monotonic()
    moved = {g.id: begun for g, _ in seated}  # when each table last stored an action
    versions: dict[int, int] = {}
    playing = True

    longest = dict.fromkeys(moved, 0.0)  # each table's longest wait for an action

    async def watch() -> None:
        while playing:
            now = time.monotonic()
            for chat, version in (await _stored_versions(db)).items():
                if chat in moved and versions.get(chat) != version:
                    longest[chat] = max(longest[chat], now - moved[chat])
                    if now - moved[chat] > STALL_S / 2:  # what a slow table waited for, in the logs
                        at = time.strftime(
                            "%H:%M:%S", time.gmtime(time.time() - (now - moved[chat]))
                        )
                        print(
                            f"chat {chat}: no action {now - moved[chat]:.0f} s from {at} UTC"
                            f" (version {versions.get(chat)})",
                            flush=True,
                        )
                    versions[chat], moved[chat] = version, now
            await asyncio.sleep(0.5)

    async def drive(group: SimGroup, users: list[SimUser]) -> None:
        k = -group.id
        players = [SimPlayer(api, u, random.Random(k * 10 + i)) for i, u in enumerate(users)]
        look = random.Random(k)
        told = 0.0  # the wait last told about (a slow table: what it waits for, as it waits)
        while not over(api, group):
            now = time.monotonic()
            if now - moved[group.id] > STALL_S / 2 and told != moved[group.id]:
                told = moved[group.id]
                wait = now - moved[group.id]
                print(f"chat {group.id}: waiting {wait:.0f} s; {asked(players)}", flush=True)
            if now - moved[group.id] > STALL_S or now - begun > DEADLINE_S:
                stalled[group.id] = (
                    f"no action for {now - moved[group.id]:.0f} s at version"
                    f" {versions.get(group.id)}, {now - begun:.0f} s after the start;"
                    f" {asked(players)}"
                )
                print(f"chat {group.id}: stalled, {stalled[group.id]}", flush=True)
                return
            await asyncio.sleep(look.uniform(0.05, 0.2))  # people look at their phones
            for p in players:
                await p.step(patient=True)

    watcher = asyncio.create_task(watch())
    try:
        await asyncio.gather(*(drive(g, us) for g, us in seated))
    finally:
        playing = False
        await watcher
    print("longest wait for an action, by chat:", {c: round(s) for c, s in longest.items()})
    return stalled


async def seat(api: LocalBotApi, group: SimGroup, users: list[SimUser]) -> float:
    """Everyone takes their seat, the opener starts the game (each press waits a while for the
    lobby to show it); the longest wait for a press's button or its result."""
    try:
        await until(lambda: _lobby_shown(api, group), 60.0)
    except TimeoutError:
        raise AssertionError(f"chat {group.id}: no lobby shown within 60 s") from None
    longest = 0.0
    for i, u in enumerate(users):
        began = time.monotonic()
        try:
            await press_lobby(api, group, u, LobbyOp.SIT, i, timeout=SEAT_WAIT_S)
        except LookupError:
            seats = lobby(api, group)
            raise AssertionError(f"chat {group.id}: no seat {i + 1} to take; {seats}") from None
        longest = max(longest, time.monotonic() - began)
    # 开始 counts only on the lobby as it is now: pressed on one shown before the last seat was
    # taken (its edit later than the wait above: a loaded machine), it would be refused as stale
    # and the table never start — the opener presses it once they see everyone seated
    began = time.monotonic()
    try:
        await until(lambda: everyone_shown(api, group, users), SEAT_WAIT_S)
    except TimeoutError:
        raise AssertionError(
            f"chat {group.id}: the lobby did not show everyone seated within {SEAT_WAIT_S:.0f} s;"
            f" {lobby(api, group)}"
        ) from None
    await press_lobby(api, group, users[0], LobbyOp.GO, timeout=SEAT_WAIT_S)
    return max(longest, time.monotonic() - began)


def everyone_shown(api: LocalBotApi, group: SimGroup, users: list[SimUser]) -> bool:
    """The lobby shows each of ``users`` in their seat (the seat's button names them)."""
    try:
        shown = lobby_message(api, group)
    except LookupError:
        return False
    labels = {b.text for row in shown.reply_markup for b in row}
    return all(f"{i + 1}·{u.first_name[:8]}" in labels for i, u in enumerate(users))


def lobby(api: LocalBotApi, group: SimGroup) -> str:
    """The lobby as the group sees it, on one line (for a failure's message)."""
    try:
        shown = lobby_message(api, group)
    except LookupError:
        return "no lobby shown"
    seats = [b.text for row in shown.reply_markup[:2] for b in row]
    return f"the lobby (edited {shown.edits} times) shows the seats {seats}"


async def lobbies(db: S.SqlStorage, groups: list[SimGroup]) -> list[int]:
    """The chats whose table has not started (their lobby still open) :data:`START_S` after
    the last table that did (the bot deals them one after another, slowly on a loaded
    machine)."""
    chats = {g.id for g in groups}
    waiting: list[int] = []
    last = time.monotonic()
    while True:
        rows = await db._rows("SELECT chat_id FROM game_tables WHERE status = 'lobby'")
        now_waiting = [c for (c,) in rows if c in chats]
        if len(now_waiting) != len(waiting):
            last = time.monotonic()
        waiting = now_waiting
        if not waiting or time.monotonic() - last > START_S:
            return waiting
        await asyncio.sleep(0.2)


async def disrupt(cluster: BotCluster, db: S.SqlStorage, done: asyncio.Event) -> Disruptions:
    """Mid-game, process 0 killed and restarted; later process 1 (0 when alone) stopped with
    SIGTERM and restarted."""
    seen = Disruptions()
    plan = [("kill", 0, KILL_AT), ("term", 1 % cluster.n, TERM_AT)]
    while plan and not done.is_set():
        actions = sum((await _stored_versions(db)).values())
        what, i, share = plan[0]
        if actions >= share * KNOWN_GAME_LENGTH * GAMES:
            struck = time.strftime("%H:%M:%S", time.gmtime())
            if what == "kill":
                await cluster.kill(i)
                seen.kills += 1
                await asyncio.sleep(1.0)  # down a moment: the others take its updates
            else:
                await cluster.term(i)
                seen.terms += 1
            await cluster.restart(i)
            seen.at.append((what, i, actions))
            back = time.strftime("%H:%M:%S", time.gmtime())
            print(f"{what} process {i} at {actions} actions, {struck}-{back} UTC", flush=True)
            plan.pop(0)
        await asyncio.sleep(0.2)
    return seen


async def expected_cheers(registry: Tables, row: S.TableRow) -> list[str]:
    """The cheers the table's stored record makes (its actions replayed into a transcript),
    as the group reads them."""
    try:
        table = await registry.load(row)  # raises unless the stored actions replay
    except Exception as e:
        raise AssertionError(f"chat {row.chat_id}: the stored actions do not replay: {e!r}") from e
    assert table.match is not None, f"chat {row.chat_id}: the stored table has no match"
    events: list[Event] = []
    Match.restore(table.match.record(), events)
    transcript = Transcript(table.names(), table.lang)
    transcript.feed(events)
    return [plain(c) for c in transcript.cheers()]


async def check_storage(url: str, groups: list[SimGroup]) -> dict[int, list[str]]:
    """Each group's table: over, its action log 0..version-1 without a gap, replaying to the
    end, its game stored once; the cheers its record makes, by chat."""
    cheers: dict[int, list[str]] = {}
    async with S.storage_for(url) as db:
        registry = Tables(db, _NoOutput(), deployment_for(db), Config(), Chats(db, "zh"))
        for g in groups:
            rows = await db._rows(
                "SELECT table_id, status, version FROM game_tables WHERE chat_id = ?", (g.id,)
            )
            assert len(rows) == 1, f"chat {g.id}: {len(rows)} tables stored: {rows}"
            table_id, status, version = rows[0]
            assert status == "over", f"chat {g.id}: its table {status} at version {version}"
            query = "SELECT seq FROM actions WHERE table_id = ? ORDER BY seq"
            seqs = [s for (s,) in await db._rows(query, (table_id,))]
            missing = sorted(set(range(version)) - set(seqs))
            twice = sorted(s for s, n in Counter(seqs).items() if n > 1)
            assert seqs == list(range(version)), (
                f"chat {g.id}: the actions stored are not 0..{version - 1} once each: missing"
                f" {missing[:10]}, twice {twice[:10]}, beyond {[s for s in seqs if s >= version]}"
            )
            games = len(await db.games(g.id))
            assert games == 1, f"chat {g.id}: its game stored {games} times"
            row = await db.load_table(table_id)
            assert row is not None, f"chat {g.id}: table {table_id} does not load"
            cheers[g.id] = await expected_cheers(registry, row)
    return cheers


def check_heard(chat: int, heard: list[str], cheers: list[str], kills: int) -> None:
    """The group heard every cheer of the record, in order; a message more than once only for
    a kill that struck while its call was on the way (at most one a kill)."""
    lost = Counter(cheers) - Counter(heard)
    assert not lost, (
        f"chat {chat}: {lost.total()} of the record's {len(cheers)} cheers never heard: "
        f"{short(lost)}; the group heard {len(heard)} announcements, the last: {short(heard[-3:])}"
    )
    order = list(dict.fromkeys(h for h in heard if h in cheers))
    record = list(dict.fromkeys(cheers))
    at = next((i for i, (h, c) in enumerate(zip(order, record, strict=False)) if h != c), 0)
    assert order == record, (
        f"chat {chat}: cheers heard out of the record's order from cheer {at + 1} of"
        f" {len(record)}: heard {short(order[at : at + 3])},"
        f" the record {short(record[at : at + 3])}"
    )
    expected = Counter(cheers) + Counter(h for h in dict.fromkeys(heard) if h not in cheers)
    extra = Counter(heard) - expected
    assert extra.total() <= kills, (
        f"chat {chat}: {extra.total()} message(s) heard once more than the record makes, with"
        f" {kills} kill(s) (one each at most): {short(extra)}"
    )


async def run_games(tmp: Path, url: str, procs: int) -> None:
    try:
        await play_games(tmp, url, procs)
    finally:  # (shown with a failure: what the processes met, by kind)
        logs = "".join(f.read_text(errors="replace") for f in sorted(tmp.glob("bot-*.log")))
        print(f"the bot logs' warnings and errors, by kind:\n{log_digest(logs)}", flush=True)


async def play_games(tmp: Path, url: str, procs: int) -> None:
    async with LocalBotApi(rate=RateLimits(per_chat_per_s=30.0, per_chat_burst=8)) as api:
        async with BotCluster(api, url, KNOBS, procs, tmp) as cluster:
            seated = [await _table(api, k) for k in range(GAMES)]
            await api.idle(quiet=0.3, timeout=120.0)
            waits = await asyncio.gather(*(seat(api, g, us) for g, us in seated))
            print(f"longest wait for a lobby press: {max(waits):.1f} s", flush=True)
            start = time.monotonic()
            done = asyncio.Event()
            async with S.storage_for(url) as db:
                waiting = await lobbies(db, [g for g, _ in seated])
                assert not waiting, "tables that never started (a lobby press lost): " + "; ".join(
                    f"chat {g.id}: {lobby(api, g)}" for g, _ in seated if g.id in waiting
                )
                disruption = asyncio.create_task(disrupt(cluster, db, done))
                try:
                    stalled = await play_to_end(api, db, seated)
                finally:
                    done.set()
                    seen = await disruption
                played = sum((await _stored_versions(db)).values())
            print(f"{played} actions in {time.monotonic() - start:.0f} s; {seen}", flush=True)
            await api.idle(quiet=1.0, timeout=60.0)  # the groups' last paced messages
            took = dict(cluster.forwarder.counts)
            print(f"updates each process took: {took}; {cluster.forwarder.failures}", flush=True)
        log = cluster.log_text()
        heard = {g.id: announcements(api, g) for g, _ in seated}
        over_texts = {
            g.id: [m.plain for m in api.messages(g.id) if has_button(m, Kind.OVER, OverOp.AGAIN)]
            for g, _ in seated
        }
        ranks_told = {g.id: any("头科" in text for text in shown(api, g)) for g, _ in seated}
    assert not stalled, f"games that stalled (a prompt lost): {stalled}"
    assert (seen.kills, seen.terms) == (1, 1), f"the games ended before the disruptions: {seen}"
    assert len(took) == procs, f"{len(took)} of {procs} processes took updates: {took}"
    groups = [g for g, _ in seated]
    for g in groups:  # every game reached its end, its ranks announced in its group
        # once; twice only if a kill struck while it was on its way (sent again: nobody can
        # tell whether Telegram got it)
        overs = over_texts[g.id]
        assert overs, f"chat {g.id}: no game-over message (its 再来一局 button)"
        assert len(overs) <= 1 + seen.kills, (
            f"chat {g.id}: {len(overs)} game-over messages with {seen.kills} kill(s):"
            f" {short(overs)}"
        )
        assert "本局结束" in overs[0], f"chat {g.id}: the game-over message: {short(overs)}"
        assert ranks_told[g.id], f"chat {g.id}: no 头科 told"
    cheers = await check_storage(url, groups)
    made = {chat: len(c) for chat, c in cheers.items()}
    assert sum(made.values()) >= GAMES, f"the records make too few cheers to compare: {made}"
    for g in groups:
        check_heard(g.id, heard[g.id], cheers[g.id], seen.kills)
    errors = [line for line in log.splitlines() if " ERROR " in line]
    assert not errors, f"{len(errors)} error(s) in the bot logs, the first: {errors[:5]}"


@pytest.mark.parametrize("procs", [1, 3])
async def test_eight_games_on_several_processes_end_as_if_on_one(
    tmp_path: Path, pg_cluster: PgCluster, procs: int
) -> None:
    url = await pg_cluster.create_database()
    await run_games(tmp_path, url, procs)
