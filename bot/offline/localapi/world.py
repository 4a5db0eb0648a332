"""The simulated Telegram world behind the local Bot API server: users, groups, the messages the
bot sent (kept as :mod:`.records`), callback queries and the queue of updates waiting for
``getUpdates``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .records import (
    JSON,
    CallbackAnswer,
    SentMessage,
    bad_request,
    deep_link_payload,
    forbidden,
    present,
    utf16_len,
)

QUERY_TIMEOUT = 15.0  # seconds in which Telegram takes the answer to a callback query
ACCESSIBLE_S = 48 * 3600  # a message older than this: deleteMessage refuses, callbacks carry
# an InaccessibleMessage


@dataclass
class CallbackQuery:
    id: str
    user: SimUser
    message: SentMessage
    created: float
    answered: bool = False


class SimUser:
    """A simulated Telegram user; their private chat with the bot has the user's id."""

    def __init__(
        self,
        world: World,
        user_id: int,
        first_name: str,
        language_code: str | None,
        username: str | None,
    ) -> None:
        self._world = world
        self.id = user_id
        self.first_name = first_name
        self.language_code = language_code
        self.username = username
        self.started = False
        self.blocked = False

    def __repr__(self) -> str:
        return f"SimUser({self.id}, {self.first_name!r})"

    def json(self) -> JSON:
        out = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        return out | present(username=self.username, language_code=self.language_code)

    def chat_json(self) -> JSON:
        out = {"id": self.id, "type": "private", "first_name": self.first_name}
        return out | present(username=self.username)

    async def send(
        self,
        text: str,
        chat: SimGroup | None = None,
        *,
        thread_id: int | None = None,
        reply_to: SimUser | None = None,
    ) -> None:
        """A message from this user in ``chat`` (or in the private chat with the bot); with
        ``reply_to``, a reply to a message of that user there."""
        self._world.user_message(self, chat, text, thread_id, reply_to)
        await asyncio.sleep(0)

    async def press(
        self, message: SentMessage, *, text: str | None = None, data: str | None = None
    ) -> None:
        """Press a callback button shown on the message's current keyboard."""
        self._world.press(self, message, text, data)
        await asyncio.sleep(0)

    async def forge(self, message: SentMessage, data: str) -> None:
        """Send a callback query with any data (a tampered client), see :meth:`World.forge`."""
        self._world.forge(self, message, data)
        await asyncio.sleep(0)

    async def open_link(self, url: str) -> None:
        """Follow a ``t.me/<bot>?start=<payload>`` link: the private chat gets that /start."""
        payload = deep_link_payload(url, self._world.bot_username)
        if payload is None:
            raise ValueError(f"not a deep link to the bot: {url}")
        await self.send(f"/start {payload}")

    def answers(self) -> list[CallbackAnswer]:
        return list(self._world.answers.get(self.id, []))

    def block(self) -> None:
        self.blocked = True

    def unblock(self) -> None:
        self.blocked = False


class SimGroup:
    """A simulated group or supergroup (a forum when ``forum``) with the bot as a member."""

    def __init__(
        self, world: World, chat_id: int, title: str, forum: bool, admins: Iterable[int]
    ) -> None:
        self._world = world
        self.id = chat_id
        self.title = title
        self.forum = forum
        self.admins = set(admins)
        self.anonymous: set[int] = set()  # admins who post as the group (GroupAnonymousBot)
        self.closed_topics: set[int] = set()
        self.members: list[SimUser] = []
        self.bot_kicked = False
        self.supergroup = forum or str(chat_id).startswith("-100")
        # rights an admin lacks (user id → e.g. {"can_pin_messages"}): the bot as an admin that
        # may not pin
        self.withheld: dict[int, set[str]] = {}
        # Telegram's service messages "… pinned …" (not the bot's, not in ``by_chat``)
        self.pin_notices: list[int] = []

    def __repr__(self) -> str:
        return f"SimGroup({self.id}, {self.title!r})"

    @property
    def bot_is_admin(self) -> bool:
        return self._world.bot_id in self.admins

    def may(self, user_id: int, right: str) -> bool:
        """Whether ``user_id`` is an admin here holding ``right`` (e.g. ``can_pin_messages``)."""
        return user_id in self.admins and right not in self.withheld.get(user_id, set())

    def chat_json(self) -> JSON:
        out: JSON = {
            "id": self.id,
            "type": "supergroup" if self.supergroup else "group",
            "title": self.title,
        }
        if self.forum:
            out["is_forum"] = True
        return out

    async def send_as_chat(self, text: str, *, channel: bool = False) -> None:
        """A command posted not by a person: by an anonymous admin of this group (Telegram sends
        it from GroupAnonymousBot with the group as ``sender_chat``), or as a linked channel
        (from Channel_Bot, the channel as ``sender_chat``)."""
        sender = CHANNEL_CHAT if channel else self.chat_json()
        body = self._world.incoming(self, None, {"text": text})
        body["from"] = CHANNEL_BOT if channel else GROUP_ANONYMOUS_BOT
        body["sender_chat"] = sender
        command = text.split(maxsplit=1)[0]
        body["entities"] = [{"type": "bot_command", "offset": 0, "length": utf16_len(command)}]
        self._world.push_update({"message": body})
        await asyncio.sleep(0)

    def promote(self, user: SimUser, *, anonymous: bool = False) -> None:
        """``user`` becomes an admin; ``anonymous``: one who posts as the group (their commands
        come from GroupAnonymousBot, see :meth:`send_as_chat`; their presses as themselves)."""
        self.join_quietly(user)
        self.admins.add(user.id)
        if anonymous:
            self.anonymous.add(user.id)
        else:
            self.anonymous.discard(user.id)

    async def close_topic(self, thread_id: int, by: SimUser | None = None) -> None:
        """Close a forum topic: sending to it answers 400 TOPIC_CLOSED until it is reopened."""
        self._topic_event(thread_id, by, "forum_topic_closed")
        self.closed_topics.add(thread_id)
        await asyncio.sleep(0)

    async def reopen_topic(self, thread_id: int, by: SimUser | None = None) -> None:
        self._topic_event(thread_id, by, "forum_topic_reopened")
        self.closed_topics.discard(thread_id)
        await asyncio.sleep(0)

    def _topic_event(self, thread_id: int, by: SimUser | None, kind: str) -> None:
        if not self.forum:
            raise ValueError("topics need a forum group")
        actor = by or (self.members[0] if self.members else None)
        fields = {kind: {}, "message_thread_id": thread_id, "is_topic_message": True}
        self._world.service_message(self, actor, **fields)

    def join_quietly(self, user: SimUser) -> None:
        """``user`` is a member (as if long before the bot came): no service message."""
        if user not in self.members:
            self.members.append(user)

    async def add_member(self, user: SimUser) -> None:
        if user not in self.members:
            self.members.append(user)
        self._world.service_message(self, user, new_chat_members=[user.json()])
        await asyncio.sleep(0)

    async def remove_member(self, user: SimUser) -> None:
        if user in self.members:
            self.members.remove(user)
        self._world.service_message(self, user, left_chat_member=user.json())
        await asyncio.sleep(0)

    async def remove_bot(self, by: SimUser | None = None) -> None:
        """The bot is kicked: later calls about this chat get 403."""
        world = self._world
        actor = by or (self.members[0] if self.members else None)
        old = world.member_json(self, world.bot_id)
        self.bot_kicked = True
        world.service_message(self, actor, left_chat_member=world.bot_json())
        change = {
            "chat": self.chat_json(),
            "from": actor.json() if actor else world.service_user,
            "date": world.now(),
            "old_chat_member": old,
            "new_chat_member": {"status": "kicked", "user": world.bot_json(), "until_date": 0},
        }
        world.push_update({"my_chat_member": change})
        await asyncio.sleep(0)

    async def migrate(self, new_id: int) -> None:
        """A group upgraded to a supergroup: the old id answers 400 with migrate_to_chat_id."""
        world = self._world
        actor = self.members[0] if self.members else None
        old_id = self.id
        world.service_message(self, actor, migrate_to_chat_id=new_id)
        self.id = new_id
        self.supergroup = True
        world.migrated[old_id] = new_id
        del world.groups[old_id]
        world.groups[new_id] = self
        world.service_message(self, None, migrate_from_chat_id=old_id)
        await asyncio.sleep(0)

    async def send_raw(self, update: JSON) -> None:
        """Queue an arbitrary update body (``{"edited_message": {...}}``…) for fuzzing."""
        self._world.push_update(dict(update))
        await asyncio.sleep(0)

    def message_json(self, user: SimUser | None, **fields: Any) -> JSON:
        """A message body in this chat from ``user`` with a fresh message id, for ``send_raw``."""
        return self._world.incoming(self, user, fields)


Chat = SimUser | SimGroup
# The accounts Telegram sends posts from when they are not a person's (Bot API "sender_chat")
GROUP_ANONYMOUS_BOT: JSON = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}
CHANNEL_BOT: JSON = {
    "id": 136817688,
    "is_bot": True,
    "first_name": "Channel",
    "username": "Channel_Bot",
}
CHANNEL_CHAT: JSON = {"id": -1009999999999, "type": "channel", "title": "某个频道"}
_ADMIN_CAN = ("can_manage_chat", "can_delete_messages", "can_restrict_members", "can_change_info",
              "can_invite_users", "can_pin_messages")  # fmt: skip
_ADMIN_CANNOT = ("can_be_edited", "is_anonymous", "can_manage_video_chats", "can_promote_members",
                 "can_post_stories", "can_edit_stories", "can_delete_stories")  # fmt: skip


class World:
    """All simulated state. Synchronous: the server runs each method to completion."""

    def __init__(self, bot_id: int, bot_username: str) -> None:
        self.bot_id = bot_id
        self.bot_username = bot_username
        self.users: dict[int, SimUser] = {}
        self.groups: dict[int, SimGroup] = {}
        self.migrated: dict[int, int] = {}
        self.sent: dict[tuple[int, int], SentMessage] = {}
        self.by_chat: dict[int, list[SentMessage]] = {}
        self.user_messages: dict[tuple[int, int], bool] = {}  # → deleted
        self.user_dates: dict[tuple[int, int], int] = {}
        self.files: dict[str, bytes] = {}
        self.queries: dict[str, CallbackQuery] = {}
        self.answers: dict[int, list[CallbackAnswer]] = {}
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.settings: dict[tuple[str, str], dict[str, str]] = {}  # setMyName…, menu button
        # the bot's BotFather settings and its webhook, as getMe and getWebhookInfo tell them
        self.can_join_groups = True
        self.privacy = True  # group privacy on: the bot sees only commands and replies to it
        self.inline = False
        self.webhook_url = ""
        self.webhook_secret = ""  # sent with every delivery (X-Telegram-Bot-Api-Secret-Token)
        self.updates: list[JSON] = []  # not yet confirmed by a getUpdates offset
        self.undelivered = 0
        self.query_timeout: float | None = QUERY_TIMEOUT  # seconds a query stays answerable
        self.skew = 0.0  # seconds the simulated clock is ahead of the real one (advance)
        self.last_activity = time.monotonic()
        self.wakeup = asyncio.Event()
        self._next_update = 1
        self._next_id: dict[int, int] = {}
        self._next_file = 0
        self._next_query = 0
        self.service_user: JSON = {"id": 777000, "is_bot": False, "first_name": "Telegram"}

    # ---- the clock (Telegram's, which a test may move forward)
    def clock(self) -> float:
        """Monotonic seconds: callback queries' ages, the rate limits' windows."""
        return time.monotonic() + self.skew

    def now(self) -> int:
        """Unix time: messages' dates."""
        return int(time.time() + self.skew)

    def accessible(self, m: SentMessage) -> bool:
        """Whether Telegram still gives the bot this message (not deleted, not 48 h old)."""
        return not m.deleted and self.now() - m.date < ACCESSIBLE_S

    # ---- identities
    def bot_json(self) -> JSON:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": "够级裁判",
            "username": self.bot_username,
        }

    def chat(self, chat_id: int, *, write: bool = True) -> Chat:
        """The chat behind ``chat_id``, or the error Telegram gives for it."""
        if chat_id in self.migrated:
            raise bad_request(
                "group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self.migrated[chat_id]},
            )
        group = self.groups.get(chat_id)
        if group is not None:
            if group.bot_kicked:
                kind = "supergroup" if group.supergroup else "group"
                raise forbidden(f"bot was kicked from the {kind} chat")
            return group
        user = self.users.get(chat_id)
        if user is None:
            raise bad_request("chat not found")
        if write and user.blocked:
            raise forbidden("bot was blocked by the user")
        if write and not user.started:
            raise forbidden("bot can't initiate conversation with a user")
        return user

    def member_json(self, group: SimGroup | SimUser, user_id: int) -> JSON:
        if isinstance(group, SimUser):
            if user_id not in (group.id, self.bot_id):
                raise bad_request("user not found")
            return {"status": "member", "user": self._user_json(user_id)}
        if user_id == self.bot_id and group.bot_kicked:
            return {"status": "kicked", "user": self.bot_json(), "until_date": 0}
        for account in (GROUP_ANONYMOUS_BOT, CHANNEL_BOT):
            if user_id == account["id"]:
                # the accounts anonymous admins and channels post from: no member, no admin
                # (the stricter choice; Telegram documents nothing of it: a post's sender_chat
                # tells who posted)
                return {"status": "left", "user": dict(account)}
        user = self._user_json(user_id)
        if user_id in group.admins:
            rights = dict.fromkeys(_ADMIN_CAN, True) | dict.fromkeys(_ADMIN_CANNOT, False)
            rights["can_manage_topics"] = group.forum
            rights["is_anonymous"] = user_id in group.anonymous
            rights.update(dict.fromkeys(group.withheld.get(user_id, ()), False))
            return {"status": "administrator", "user": user, **rights}
        members = {u.id for u in group.members} | {self.bot_id}
        return {"status": "member" if user_id in members else "left", "user": user}

    def _user_json(self, user_id: int) -> JSON:
        if user_id == self.bot_id:
            return self.bot_json()
        if user_id not in self.users:
            raise bad_request("user not found")
        return self.users[user_id].json()

    # ---- ids and files
    def next_message_id(self, chat_id: int) -> int:
        self._next_id[chat_id] = self._next_id.get(chat_id, 0) + 1
        return self._next_id[chat_id]

    def store_file(self, data: bytes) -> str:
        self._next_file += 1
        file_id = f"AgAD{self._next_file:06d}"
        self.files[file_id] = data
        return file_id

    # ---- messages
    def message(self, chat_id: int, message_id: int) -> SentMessage:
        return self.sent[(chat_id, message_id)]

    def message_json(self, m: SentMessage) -> JSON:
        chat = self.groups.get(m.chat_id) or self.users.get(m.chat_id)
        out: JSON = {
            "message_id": m.message_id,
            "date": m.date,
            "chat": chat.chat_json() if chat else {"id": m.chat_id, "type": "group", "title": ""},
            "from": self.bot_json(),
        } | present(
            message_thread_id=m.thread_id,
            is_topic_message=True if m.thread_id is not None else None,
            edit_date=m.edit_date,
            reply_markup=m.markup_json,
        )
        data = m.photo or m.document or m.animation or b""
        file = {"file_id": m.file_id, "file_unique_id": f"U{m.file_id}", "file_size": len(data)}
        if m.photo is not None:
            out["photo"] = [file | {"width": m.photo_dims[0], "height": m.photo_dims[1]}]
        elif m.animation is not None:
            # "for backward compatibility, when this field is set, the document field will also
            # be set" (Bot API, Message.animation)
            name = {"file_name": m.filename or "animation.gif", "mime_type": "image/gif"}
            width, height = m.animation_dims
            out["animation"] = file | name | {"width": width, "height": height, "duration": 0}
            out["document"] = file | name
        elif m.document is not None:
            out["document"] = file | {"file_name": m.filename or "file"}
        if not m.has_media:
            out["text"] = m.text
        elif m.text:
            out["caption"] = m.text
        return out

    def callback_message_json(self, m: SentMessage) -> JSON:
        """The ``message`` of a callback query: the message, or for one the bot can no longer
        get (deleted, or older than 48 h) an InaccessibleMessage: chat, id and date 0."""
        if self.accessible(m):
            return self.message_json(m)
        chat = self.groups.get(m.chat_id) or self.users.get(m.chat_id)
        chat_json = chat.chat_json() if chat else {"id": m.chat_id, "type": "group", "title": ""}
        return {"chat": chat_json, "message_id": m.message_id, "date": 0}

    # ---- updates
    def push_update(self, body: JSON) -> None:
        body["update_id"] = self._next_update
        self._next_update += 1
        self.updates.append(body)
        self.undelivered += 1
        self.last_activity = time.monotonic()
        self.wakeup.set()
        self.wakeup = asyncio.Event()

    def incoming(self, chat: Chat, user: SimUser | None, fields: JSON) -> JSON:
        message_id = self.next_message_id(chat.id)
        self.user_messages[(chat.id, message_id)] = False
        self.user_dates[(chat.id, message_id)] = self.now()
        body: JSON = {"message_id": message_id, "date": self.now(), "chat": chat.chat_json()}
        body["from"] = user.json() if user else self.service_user
        body.update(fields)
        return body

    def user_message(
        self,
        user: SimUser,
        group: SimGroup | None,
        text: str,
        thread_id: int | None,
        reply_to: SimUser | None = None,
    ) -> None:
        chat: Chat = group if group is not None else user
        if group is None:
            user.started = True  # writing to a bot starts (and unblocks) it
            user.blocked = False
        elif group.bot_kicked:
            return  # the bot no longer sees this chat
        elif user not in group.members:
            group.members.append(user)
        fields: JSON = {"text": text}
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            fields["entities"] = [
                {"type": "bot_command", "offset": 0, "length": utf16_len(command)}
            ]
        if thread_id is not None:
            if not isinstance(chat, SimGroup) or not chat.forum:
                raise ValueError("thread_id needs a forum group")
            fields["message_thread_id"] = thread_id
            fields["is_topic_message"] = True
        if reply_to is not None:  # a message of theirs the bot did not see (group privacy)
            fields["reply_to_message"] = self.incoming(chat, reply_to, {"text": "…"})
        self.push_update({"message": self.incoming(chat, user, fields)})

    def service_message(self, group: SimGroup, user: SimUser | None, **fields: Any) -> None:
        self.push_update({"message": self.incoming(group, user, fields)})

    def press(
        self, user: SimUser, message: SentMessage, text: str | None, data: str | None
    ) -> None:
        current = self.sent.get((message.chat_id, message.message_id))
        if current is None or current.deleted or 0 < current.chat_id != user.id:
            raise LookupError(f"{user} does not see message {message.message_id}")
        for button in current.buttons:
            if button.callback_data is None:
                continue  # url buttons are links, not callbacks
            if (text is None or button.text == text) and (
                data is None or button.callback_data == data
            ):
                break
        else:
            shown = [(b.text, b.callback_data) for b in current.buttons]
            raise LookupError(f"no button text={text!r} data={data!r}; shown: {shown}")
        self._query(user, current, button.callback_data)

    def forge(self, user: SimUser, message: SentMessage, data: str) -> None:
        """A hostile or buggy client: a callback with any ``data`` on any message it names,
        shown to that user or not (the bot must refuse what it did not offer)."""
        current = self.sent.get((message.chat_id, message.message_id)) or message
        self._query(user, current, data)

    def _query(self, user: SimUser, current: SentMessage, data: str) -> None:
        group = self.groups.get(current.chat_id)
        if group is not None and group.bot_kicked:
            return  # the bot no longer hears this chat
        self.push_update({"callback_query": self.query_json(user, current, data)})

    def query_json(self, user: SimUser, message: SentMessage, data: str) -> JSON:
        """A new callback query of ``user`` pressing ``data`` on ``message``, as Telegram
        sends it (not delivered: a test may change any part of it first); its answer is taken."""
        self._next_query += 1
        query_id = f"{self._next_query}{user.id % 100000:05d}"
        self.queries[query_id] = CallbackQuery(query_id, user, message, self.clock())
        return {
            "id": query_id,
            "from": user.json(),
            "message": self.callback_message_json(message),
            "chat_instance": str(message.chat_id),
            "data": data,
        }
