"""The Web API methods the Slack stand-in answers, one handler per method, with Slack's own rules.

Each handler takes the call's arguments (read through `args`) and returns the body of an `ok` answer
or raises `SlackError` with the code Slack would send (`name_taken`, `not_in_channel`, ...). They sit
on top of the workspace state in `state` (the conversation ones in `conversations`); authentication,
rate limiting and HTTP stay in `standin`, which looks handlers up in `_method_table`.
"""

from __future__ import annotations

import json
import re

from bot.sandbox.slack.args import Args, Handler
from bot.sandbox.slack.blocks import check_view
from bot.sandbox.slack.conversations import ConversationMethods
from bot.sandbox.slack.state import (
    APP_ID,
    BOT_ID,
    TEAM_ID,
    Answer,
    Bookmark,
    Channel,
    Ephemeral,
    Message,
    OpenedView,
    SlackError,
    SlackFile,
    invalid_arguments,
)

MAX_TEXT = 40_000
MAX_BOOKMARKS = 100
TRIGGER_ID = re.compile(r"\d+\.\d+\.[0-9a-f]+")
TRIGGER_LIFETIME = 3
MAX_VIEW_BYTES = 250 * 1024


class SlackMethods(ConversationMethods):
    """The per-method handlers, working on the workspace state they inherit."""

    # -- methods -----------------------------------------------------------------------------

    def _method_table(self) -> dict[str, Handler]:
        return self._conversation_methods() | {
            "auth.test": self._auth_test,
            "chat.postMessage": self._chat_post_message,
            "chat.update": self._chat_update,
            "chat.postEphemeral": self._chat_post_ephemeral,
            "bookmarks.add": self._bookmarks_add,
            "pins.add": self._pins_add,
            "users.lookupByEmail": self._users_lookup_by_email,
            "users.info": self._users_info,
            "usergroups.users.list": self._usergroups_users_list,
            "views.open": self._views_open,
            "files.getUploadURLExternal": self._files_get_upload_url,
            "files.completeUploadExternal": self._files_complete_upload,
        }

    def _auth_test(self, _args: Args) -> Answer:
        bot = self.users[self.bot_user_id]
        return {
            "url": "https://sandbox.slack.com/",
            "team": "Sandbox",
            "user": bot.name,
            "team_id": TEAM_ID,
            "user_id": bot.id,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }

    def _chat_post_message(self, args: Args) -> Answer:
        channel = self._post_target(args.get("channel"))
        blocks = args.blocks()
        attachments = args.attachments()
        text = args.get("text") or ""
        if not text and not blocks and not attachments:
            raise SlackError("no_text")
        message = Message(
            ts=self.new_ts(),
            user=self.bot_user_id,
            bot_id=BOT_ID,
            text=text[:MAX_TEXT],
            blocks=blocks or [],
            attachments=attachments,
            thread_ts=self._thread_root(channel, args.get("thread_ts")),
        )
        channel.messages.append(message)
        return {"channel": channel.id, "ts": message.ts, "message": message.to_api()}

    def _thread_root(self, channel: Channel, thread_ts: str | None) -> str | None:
        """Replying to a reply threads under its parent, as Slack does."""
        if thread_ts is None:
            return None
        parent = channel.message(thread_ts)
        return (parent.thread_ts or thread_ts) if parent else thread_ts

    def _chat_update(self, args: Args) -> Answer:
        """Slack's rule: blocks sent (`[]` included) replace the old ones; text sent without blocks
        drops them (the text is rendered instead); only an update with neither, e.g. attachments
        alone, keeps them. The "edited" mark shows for text updates, not for block updates."""
        channel = self._channel(args.get("channel"))
        message = channel.message(args.need("ts", "message_not_found"))
        if message is None:
            raise SlackError("message_not_found")
        if message.user != self.bot_user_id:
            raise SlackError("cant_update_message")
        if channel.is_archived:
            raise SlackError("is_inactive")
        blocks = args.blocks()
        text = args.get("text")
        attachments = args.attachments() if args.get("attachments") is not None else None
        if text is None and not blocks and not attachments:
            raise SlackError("no_text")
        if blocks is not None or text is not None:
            message.blocks = blocks or []
            message.text = (text or "")[:MAX_TEXT]
        if attachments is not None:
            message.attachments = attachments
        message.edited = blocks is None
        return {"channel": channel.id, "ts": message.ts, "text": message.text, "message": message.to_api()}

    def _chat_post_ephemeral(self, args: Args) -> Answer:
        channel = self._post_target(args.get("channel"))
        user = self._user(args.need("user", "user_not_found"))
        if user.id not in channel.members:
            raise SlackError("user_not_in_channel")
        blocks = args.blocks()
        text = args.get("text") or ""
        if not text and not blocks:
            raise SlackError("no_text")
        ephemeral = Ephemeral(
            ts=self.new_ts(),
            user=user.id,
            text=text[:MAX_TEXT],
            blocks=blocks or [],
            thread_ts=args.get("thread_ts"),
        )
        channel.ephemerals.append(ephemeral)
        return {"message_ts": ephemeral.ts}

    def _bookmarks_add(self, args: Args) -> Answer:
        channel = self._channel(args.get("channel_id"))
        title = args.need("title")
        if args.need("type") != "link":
            raise SlackError("invalid_bookmark_type")
        link = args.get("link") or ""
        if not link.startswith(("http://", "https://")):
            raise SlackError("invalid_link")
        if len(channel.bookmarks) >= MAX_BOOKMARKS:
            raise SlackError("too_many_bookmarks")
        bookmark = Bookmark(
            id=self._new_id("Bk"),
            channel_id=channel.id,
            title=title,
            type="link",
            link=link,
            emoji=args.get("emoji"),
            date_created=int(self.clock()),
        )
        channel.bookmarks.append(bookmark)
        return {"bookmark": bookmark.to_api()}

    def _pins_add(self, args: Args) -> Answer:
        channel = self._channel(args.get("channel"))
        ts = args.need("timestamp", "no_item_specified")
        if channel.message(ts) is None:
            raise SlackError("message_not_found")
        if ts in channel.pins:
            raise SlackError("already_pinned")
        channel.pins.append(ts)
        return {}

    def _users_lookup_by_email(self, args: Args) -> Answer:
        email = args.need("email", "users_not_found").lower()
        for user in self.users.values():
            if user.email and user.email.lower() == email:
                return {"user": user.to_api()}
        raise SlackError("users_not_found")

    def _users_info(self, args: Args) -> Answer:
        return {"user": self._user(args.get("user")).to_api()}

    def _usergroups_users_list(self, args: Args) -> Answer:
        members = self.usergroups.get(args.need("usergroup", "no_such_subteam"))
        if members is None:
            raise SlackError("no_such_subteam")
        return {"users": list(members)}

    def _views_open(self, args: Args) -> Answer:
        """A trigger opens one view, within 3 seconds of the interaction that issued it."""
        trigger_id = args.need("trigger_id")
        if not TRIGGER_ID.fullmatch(trigger_id):
            raise SlackError("invalid_trigger_id")
        if any(opened.trigger_id == trigger_id for opened in self.views):
            raise SlackError("exchanged_trigger_id")
        issued = self.triggers.get(trigger_id)
        if issued is not None and self.clock() - issued > TRIGGER_LIFETIME:
            raise SlackError("expired_trigger_id")
        view = args.structured("view")
        if not isinstance(view, dict):
            raise invalid_arguments("[ERROR] must provide an object [json-pointer:/view]")
        if len(json.dumps(view).encode()) > MAX_VIEW_BYTES:
            raise SlackError("view_too_large")
        errors = check_view(view)
        if errors:
            raise invalid_arguments(*errors)
        opened = OpenedView(id=self._new_id("V"), trigger_id=trigger_id, view=view)
        self.views.append(opened)
        return {"view": self._view_answer(opened)}

    def _view_answer(self, opened: OpenedView) -> Answer:
        return {
            "callback_id": "",
            "private_metadata": "",
            "external_id": "",
            **opened.view,
            "id": opened.id,
            "team_id": TEAM_ID,
            "state": {"values": {}},
            "hash": f"{int(self.clock())}.{opened.id}",
            "root_view_id": opened.id,
            "app_id": APP_ID,
            "bot_id": BOT_ID,
        }

    def _files_get_upload_url(self, args: Args) -> Answer:
        filename = args.need("filename")
        length = args.need("length")
        if not length.isdigit():
            raise invalid_arguments("[ERROR] length must be an integer")
        upload = SlackFile(id=self._new_id("F"), name=filename, length=int(length))
        self.files[upload.id] = upload
        return {"upload_url": f"{args.base_url}/_sandbox/upload/{upload.id}", "file_id": upload.id}

    def _files_complete_upload(self, args: Args) -> Answer:
        entries = args.structured("files")
        if not isinstance(entries, list) or not entries:
            raise invalid_arguments("[ERROR] missing required field: files")
        uploads = [self._uploaded(entry) for entry in entries]
        channel_id = args.get("channel_id")
        if channel_id is not None:
            self._share(uploads, self._sharing_target(channel_id), args)
        return {"files": [upload.to_api() for upload in uploads]}

    def _uploaded(self, entry: object) -> SlackFile:
        spec = entry if isinstance(entry, dict) else {}
        upload = self.files.get(str(spec.get("id", "")))
        if upload is None or upload.content is None:
            raise SlackError("file_not_found")
        upload.title = str(spec.get("title") or upload.title or upload.name)
        return upload

    def _sharing_target(self, channel_id: str) -> Channel:
        channel = self._channel(channel_id, error="invalid_channel")
        if self.bot_user_id not in channel.members:
            raise SlackError("not_in_channel")
        return channel

    def _share(self, uploads: list[SlackFile], channel: Channel, args: Args) -> None:
        """Files land in the channel as one message carrying `initial_comment`, as on Slack."""
        for upload in uploads:
            upload.channels.append(channel.id)
            channel.files.append(upload.id)
        message = Message(
            ts=self.new_ts(),
            user=self.bot_user_id,
            bot_id=BOT_ID,
            text=args.get("initial_comment") or "",
            files=[upload.id for upload in uploads],
            thread_ts=self._thread_root(channel, args.get("thread_ts")),
        )
        channel.messages.append(message)
