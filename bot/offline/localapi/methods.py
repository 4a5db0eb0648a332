"""The Bot API methods: each reads its form parameters and changes the :class:`World`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from aiohttp.web import FileField

from .checks import animation_size, check_text, file_size_ok, image_size, parse_markup
from .world import (
    ACCESSIBLE_S,
    JSON,
    ApiError,
    CallbackAnswer,
    Chat,
    SentMessage,
    SimGroup,
    SimUser,
    World,
    bad_request,
    deep_link_payload,
    utf16_len,
)

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
Form = Mapping[str, str | bytes | bytearray | FileField]  # what aiohttp's request.post() gives
_COMMAND = re.compile(r"[a-z0-9_]{1,32}")


class Params:
    """Form fields as the client sent them: strings, JSON strings and file parts."""

    def __init__(self, method: str, form: Form) -> None:
        self.method = method
        self.form = form

    def text(self, name: str) -> str | None:
        value = self.form.get(name)
        return value if isinstance(value, str) else None

    def opt_int(self, name: str) -> int | None:
        value = self.text(name)
        if value is None:
            return None
        try:
            return int(value)
        except ValueError:
            raise bad_request(f"{name} is invalid") from None

    def integer(self, name: str) -> int:
        value = self.opt_int(name)
        if value is None:
            raise bad_request(f"{name} is empty")
        return value

    def chat_id(self) -> int:
        value = self.text("chat_id")
        if value is None:
            raise bad_request("chat_id is empty")
        try:
            return int(value)
        except ValueError:
            raise bad_request("chat not found") from None  # @usernames of public chats

    def json(self, name: str) -> Any:
        value = self.text(name)
        if value is None:
            return None
        try:
            return json.loads(value)
        except ValueError:
            raise bad_request(f"can't parse {name} JSON object") from None

    def flag(self, name: str) -> bool:
        return self.text(name) in ("true", "True", "1")

    def file(self, name: str) -> tuple[bytes, str] | None:
        value = self.form.get(name)
        if isinstance(value, FileField):
            return value.file.read(), value.filename
        return None


Method = Callable[[World, Params], Any]
METHODS: dict[str, Method] = {}


def method(*names: str) -> Callable[[Method], Method]:
    def register(fn: Method) -> Method:
        for name in names:
            METHODS[name] = fn
        return fn

    return register


# ---- bot and updates
@method("getMe")
def get_me(w: World, p: Params) -> JSON:
    return w.bot_json() | {
        "can_join_groups": w.can_join_groups,
        "can_read_all_group_messages": not w.privacy,
        "supports_inline_queries": w.inline,
    }


@method("close", "logOut")
def ok(w: World, p: Params) -> bool:
    return True


@method("deleteWebhook")
def delete_webhook(w: World, p: Params) -> bool:
    w.webhook_url = w.webhook_secret = ""
    return True


@method("setWebhook")
def set_webhook(w: World, p: Params) -> bool:
    """As Telegram, an HTTPS URL only — but this server delivers on loopback, so a plain
    ``http://127.0.0.1`` URL is taken too (nothing else can be reached from here)."""
    url = p.text("url") or ""
    local = url.startswith(("http://127.0.0.1:", "http://localhost:"))
    if url and not url.startswith("https://") and not local:
        raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
    secret = p.text("secret_token") or ""
    if (secret and not all(c.isalnum() or c in "_-" for c in secret)) or len(secret) > 256:
        raise bad_request("bad webhook: secret token contains unallowed characters")
    w.webhook_url, w.webhook_secret = url, secret
    return True


@method("getWebhookInfo")
def get_webhook_info(w: World, p: Params) -> JSON:
    return {"url": w.webhook_url, "has_custom_certificate": False, "pending_update_count": 0}


@method("getFile")
def get_file(w: World, p: Params) -> JSON:
    file_id = p.text("file_id") or ""
    if file_id not in w.files:
        raise bad_request("invalid file_id")
    size = len(w.files[file_id])
    return {
        "file_id": file_id,
        "file_unique_id": f"U{file_id}",
        "file_size": size,
        "file_path": file_id,
    }


# ---- sending
def _thread(chat: Chat, p: Params) -> int | None:
    """The forum topic a message goes to; a closed topic refuses it (the stricter choice:
    Telegram lets an admin with can_manage_topics post there, this server refuses all)."""
    thread = p.opt_int("message_thread_id")
    if thread is not None and not (isinstance(chat, SimGroup) and chat.forum):
        raise bad_request("message thread not found")
    if thread is not None and isinstance(chat, SimGroup) and thread in chat.closed_topics:
        raise bad_request("TOPIC_CLOSED")
    return thread


def _reply_to(w: World, chat: Chat, p: Params) -> int | None:
    params = p.json("reply_parameters")
    if not isinstance(params, dict):
        return None
    target = int(params.get("chat_id", chat.id)), int(params["message_id"])
    shown = target in w.sent and not w.sent[target].deleted
    known = shown or w.user_messages.get(target) is False
    if not known and not params.get("allow_sending_without_reply"):
        raise bad_request("message to be replied not found")
    return target[1]


def _send(w: World, p: Params, text_field: str, **media: Any) -> JSON:
    chat = w.chat(p.chat_id())
    parse_mode = p.text("parse_mode")
    text = check_text(p.text(text_field), parse_mode, caption=text_field == "caption")
    rows, markup = parse_markup(p.json("reply_markup"))
    thread = _thread(chat, p)
    m = SentMessage(
        message_id=w.next_message_id(chat.id),
        chat_id=chat.id,
        thread_id=thread,
        text=text,
        parse_mode=parse_mode,
        reply_markup=rows,
        markup_json=markup,
        disable_notification=p.flag("disable_notification"),
        link_preview_options=p.json("link_preview_options"),
        reply_to=_reply_to(w, chat, p),
        date=w.now(),
        **media,
    )
    w.sent[(chat.id, m.message_id)] = m
    w.by_chat.setdefault(chat.id, []).append(m)
    return w.message_json(m)


def _upload(w: World, p: Params, field: str) -> tuple[bytes, str, str | None]:
    """The file of ``field``: an uploaded part or a known file_id → (data, file_id, filename)."""
    part = p.file(field)
    if part is not None:
        return part[0], w.store_file(part[0]), part[1]
    ref = p.text(field)
    if ref is None:
        raise bad_request(f"there is no {field} in the request")
    return _known_file(w, ref), ref, None


def _known_file(w: World, file_id: str) -> bytes:
    if file_id not in w.files:
        raise bad_request("wrong file identifier/HTTP URL specified")
    return w.files[file_id]


@method("sendMessage")
def send_message(w: World, p: Params) -> JSON:
    return _send(w, p, "text")


@method("sendPhoto")
def send_photo(w: World, p: Params) -> JSON:
    w.chat(p.chat_id())  # a 403/400 for the chat comes before looking at the file
    data, file_id, _ = _upload(w, p, "photo")
    return _send(w, p, "caption", photo=data, photo_dims=image_size(data), file_id=file_id)


@method("sendDocument")
def send_document(w: World, p: Params) -> JSON:
    w.chat(p.chat_id())
    data, file_id, name = _upload(w, p, "document")
    file_size_ok(data)
    return _send(w, p, "caption", document=data, file_id=file_id, filename=name)


@method("sendAnimation")
def send_animation(w: World, p: Params) -> JSON:
    w.chat(p.chat_id())
    data, file_id, name = _upload(w, p, "animation")
    dims = animation_size(data)
    return _send(
        w, p, "caption", animation=data, animation_dims=dims, file_id=file_id, filename=name
    )


@method("sendChatAction")
def send_chat_action(w: World, p: Params) -> bool:
    _thread(w.chat(p.chat_id()), p)
    return True


# ---- editing and deleting
def _target(w: World, p: Params, what: str = "edit") -> SentMessage:
    if p.text("inline_message_id") is not None:
        raise bad_request("MESSAGE_ID_INVALID")
    chat = w.chat(p.chat_id())
    key = chat.id, p.integer("message_id")
    m = w.sent.get(key)
    if m is not None and not m.deleted:
        return m
    if w.user_messages.get(key) is False:
        raise bad_request(f"message can't be {what}ed")
    raise bad_request(f"message to {what} not found")


def _edit(
    w: World,
    m: SentMessage,
    p: Params,
    text: str,
    parse_mode: str | None,
    media: JSON | None = None,
) -> JSON:
    rows, markup = parse_markup(p.json("reply_markup"))
    same_media = media is None or media["file_id"] == m.file_id
    if text == m.text and markup == m.markup_json and same_media:
        raise bad_request(NOT_MODIFIED)
    if text != m.text:
        m.history.append(m.text)
    m.text, m.parse_mode = text, parse_mode
    m.reply_markup, m.markup_json = rows, markup
    for name, value in (media or {}).items():
        setattr(m, name, value)
    m.edits += 1
    m.edit_date = w.now()
    return w.message_json(m)


@method("editMessageText")
def edit_message_text(w: World, p: Params) -> JSON:
    m = _target(w, p)
    if m.has_media:
        raise bad_request("there is no text in the message to edit")
    parse_mode = p.text("parse_mode")
    text = check_text(p.text("text"), parse_mode)
    if p.text("link_preview_options") is not None:
        m.link_preview_options = p.json("link_preview_options")
    return _edit(w, m, p, text, parse_mode)


@method("editMessageCaption")
def edit_message_caption(w: World, p: Params) -> JSON:
    m = _target(w, p)
    if not m.has_media:
        raise bad_request("there is no caption in the message to edit")
    parse_mode = p.text("parse_mode")
    return _edit(w, m, p, check_text(p.text("caption"), parse_mode, caption=True), parse_mode)


@method("editMessageMedia")
def edit_message_media(w: World, p: Params) -> JSON:
    m = _target(w, p)
    media = p.json("media")
    if not isinstance(media, dict) or media.get("type") not in ("photo", "document"):
        raise bad_request("can't parse InputMedia: unsupported media type")
    if not m.has_media:
        raise bad_request("there is no media in the message to edit")
    source = str(media.get("media", ""))
    if source.startswith("attach://"):
        part = p.file(source.removeprefix("attach://"))
        if part is None:
            raise bad_request("wrong file identifier/HTTP URL specified")
        data, file_id, name = part[0], w.store_file(part[0]), part[1]
    else:
        data, file_id, name = _known_file(w, source), source, None
    photo = media["type"] == "photo"
    fields = {
        "file_id": file_id,
        "filename": name,
        "photo": data if photo else None,
        "photo_dims": image_size(data) if photo else (0, 0),
        "document": None if photo else data,
        "animation": None,
    }
    parse_mode = media.get("parse_mode")
    caption = check_text(media.get("caption"), parse_mode, caption=True)
    return _edit(w, m, p, caption, parse_mode, fields)


@method("editMessageReplyMarkup")
def edit_message_reply_markup(w: World, p: Params) -> JSON:
    m = _target(w, p)
    return _edit(w, m, p, m.text, m.parse_mode)


@method("deleteMessage")
def delete_message(w: World, p: Params) -> bool:
    """As Telegram: a message sent less than 48 hours ago (for any message, admin or not: the
    stricter reading of its documentation), a user's message in a group only by an admin."""
    chat = w.chat(p.chat_id())
    key = chat.id, p.integer("message_id")
    m = w.sent.get(key)
    if m is not None and not m.deleted:
        if w.now() - m.date >= ACCESSIBLE_S:
            raise bad_request("message can't be deleted")
        m.deleted = True
        return True
    if w.user_messages.get(key) is False:
        if isinstance(chat, SimGroup) and not chat.bot_is_admin:
            raise bad_request("message can't be deleted")
        if w.now() - w.user_dates.get(key, w.now()) >= ACCESSIBLE_S:
            raise bad_request("message can't be deleted")
        w.user_messages[key] = True
        return True
    raise bad_request("message to delete not found")


@method("deleteMessages")
def delete_messages(w: World, p: Params) -> bool:
    chat = w.chat(p.chat_id())
    ids = p.json("message_ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
        raise bad_request("message_ids are invalid")
    for message_id in ids:  # messages that can't be found or deleted are skipped
        m = w.sent.get((chat.id, int(message_id)))
        if m is not None and w.now() - m.date < ACCESSIBLE_S:
            m.deleted = True
    return True


@method("answerCallbackQuery")
def answer_callback_query(w: World, p: Params) -> bool:
    query = w.queries.get(p.text("callback_query_id") or "")
    timeout = w.query_timeout
    late = query is not None and timeout is not None and w.clock() - query.created > timeout
    if query is None or query.answered or late:
        raise bad_request("query is too old and response timeout expired or query ID is invalid")
    text, url = p.text("text"), p.text("url")
    if text is not None and utf16_len(text) > 200:
        raise bad_request("MESSAGE_TOO_LONG")
    if url is not None and deep_link_payload(url, w.bot_username) is None:
        raise bad_request("URL_INVALID")
    query.answered = True
    answer = CallbackAnswer(query.id, text, p.flag("show_alert"), url)
    w.answers.setdefault(query.user.id, []).append(answer)
    return True


# ---- chats
def _shown(w: World, p: Params) -> list[SentMessage]:
    """The chat's messages, when the bot may pin there: in a group, only as an administrator
    holding ``can_pin_messages`` (stricter than Telegram, where a basic group's members may pin
    when the group allows it)."""
    chat = w.chat(p.chat_id())
    if isinstance(chat, SimGroup) and not chat.may(w.bot_id, "can_pin_messages"):
        raise bad_request("not enough rights to manage pinned messages in the chat")
    return [m for m in w.by_chat.get(chat.id, []) if not m.deleted]


@method("pinChatMessage")
def pin_chat_message(w: World, p: Params) -> bool:
    shown, message_id = _shown(w, p), p.integer("message_id")
    target = next((m for m in shown if m.message_id == message_id), None)
    if target is None:
        raise bad_request("message to pin not found")
    target.pinned = True
    chat = w.chat(p.chat_id())
    if isinstance(chat, SimGroup):  # Telegram says so in the group (silently if asked)
        chat.pin_notices.append(message_id)
    return True


@method("unpinChatMessage")
def unpin_chat_message(w: World, p: Params) -> bool:
    shown, message_id = _shown(w, p), p.opt_int("message_id")
    pinned = [m for m in shown if m.pinned and message_id in (None, m.message_id)]
    if not pinned:
        raise bad_request("message to unpin not found")
    pinned[-1].pinned = False
    return True


@method("getChat")
def get_chat(w: World, p: Params) -> JSON:
    chat = w.chat(p.chat_id(), write=False)
    kinds = "unlimited limited unique premium_subscription gifts_from_channels"
    gifts = {(k if "_" in k else f"{k}_gifts"): False for k in kinds.split()}
    extra = {"accent_color_id": 0, "max_reaction_count": 11, "accepted_gift_types": gifts}
    return chat.chat_json() | extra


@method("getChatMember")
def get_chat_member(w: World, p: Params) -> JSON:
    chat = w.chat(p.chat_id(), write=False)
    return w.member_json(chat, p.integer("user_id"))


@method("getChatAdministrators")
def get_chat_administrators(w: World, p: Params) -> list[JSON]:
    chat = w.chat(p.chat_id(), write=False)
    if isinstance(chat, SimUser):
        raise bad_request("there are no administrators in the private chat")
    known = [a for a in sorted(chat.admins) if a in w.users or a == w.bot_id]
    return [w.member_json(chat, a) for a in known]


@method("setChatMenuButton", "setMyName", "setMyDescription", "setMyShortDescription")
def set_bot_setting(w: World, p: Params) -> bool:
    """Stored by method and (chat id or language code), e.g. ``("setMyName", "zh")``."""
    key = p.text("chat_id") or p.text("language_code") or ""
    w.settings[(p.method, key)] = {k: v for k, v in p.form.items() if isinstance(v, str)}
    return True


# ---- commands
def _scope(p: Params) -> tuple[str, str]:
    scope = p.json("scope") or {"type": "default"}
    return json.dumps(scope, sort_keys=True), p.text("language_code") or ""


@method("setMyCommands")
def set_my_commands(w: World, p: Params) -> bool:
    commands = p.json("commands")
    if not isinstance(commands, list) or len(commands) > 100:
        raise bad_request("too many commands" if commands else "commands are empty")
    for c in commands:
        if not isinstance(c, dict) or not _COMMAND.fullmatch(str(c.get("command", ""))):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(str(c.get("description", ""))) <= 256:
            raise bad_request("command description is invalid")
    w.commands[_scope(p)] = [
        {"command": c["command"], "description": c["description"]} for c in commands
    ]
    return True


@method("getMyCommands")
def get_my_commands(w: World, p: Params) -> list[JSON]:
    return list(w.commands.get(_scope(p), []))


@method("deleteMyCommands")
def delete_my_commands(w: World, p: Params) -> bool:
    w.commands.pop(_scope(p), None)
    return True


def call(w: World, name: str, form: Form) -> Any:
    """Run one method; raises :class:`ApiError` for Telegram's errors."""
    fn = METHODS.get(name)
    if fn is None:
        raise ApiError(404, "Not Found")
    return fn(w, Params(name, form))
