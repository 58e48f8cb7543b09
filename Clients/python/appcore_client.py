"""A Python client of appcore-serve, standard library only.

appcore-serve reads one JSON intent per line and answers each with one JSON line: the intent's
status and what changed on the screens since the line before. This client starts the server (or
attaches to one already running), says hello to check the protocol version, sends typed intents,
raises when an intent is refused or fails, and keeps the screens up to date from the replies,
merging the notes' rows as the server sends them: only the rows that changed.

    with Client.start(in_memory=True) as app:
        app.sign_up("alice.liddell", "wonderland")
        app.type_username("alice.liddell")
        app.type_password("wonderland")
        app.sign_in()
        app.add_note("milk")
        print([row["title"] for row in app.screens["notes"]["rows"]])

The protocol is described by a JSON Schema that `appcore-serve --schema` prints
(Tools/protocol/appcore-serve.schema.json in the repository).
"""

import json
import os
import subprocess

PROTOCOL_VERSION = "1.0"
"""The protocol version this client speaks; a server of another major version refuses it."""


class AppCoreError(Exception):
    """Something appcore-serve said went wrong."""


class Refused(AppCoreError):
    """The app refused the intent (nothing to do, or not now): `reason` says why."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class Failed(AppCoreError):
    """The intent ran and failed (a conflict, storage that could not be written): `reason` says why."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class TimedOut(AppCoreError):
    """The intent's work was still running when the server stopped waiting: `running` names it."""

    def __init__(self, running):
        super().__init__("still running: " + ", ".join(running))
        self.running = running


class BadLine(AppCoreError):
    """The server could not read the line sent (malformed JSON, an unknown intent, a wrong argument)."""


class VersionMismatch(AppCoreError):
    """The server speaks another major version of the protocol."""


class ServerGone(AppCoreError):
    """The server's output ended before it answered."""


class Client:
    """One conversation with appcore-serve: a line sent, a line read, the screens kept."""

    def __init__(self, reader, writer, process=None, on_reply=None):
        """Attaches to a server whose replies come from `reader` and which reads `writer` (text
        streams); `on_reply` hears every reply as parsed, before it is acted on."""
        self._reader = reader
        self._writer = writer
        self._process = process
        self._on_reply = on_reply
        self.screens = {}
        """The screens as the server last showed them, by name; the notes' `rows` are merged."""
        self.versions = None
        """The server's versions, from its answer to hello: {"protocol": …, "appcore": …}."""

    @classmethod
    def start(cls, database=None, in_memory=False, login_style=None, executable=None, on_reply=None, extra_arguments=()):
        """Starts appcore-serve on `database` (a path), or keeping nothing with `in_memory`, and says
        hello. The executable is `executable`, else $APPCORE_SERVE, else `appcore-serve` on PATH."""
        executable = executable or os.environ.get("APPCORE_SERVE") or "appcore-serve"
        arguments = [executable]
        if in_memory:
            arguments.append("--in-memory")
        elif database is not None:
            arguments += ["--db", os.fspath(database)]
        if login_style is not None:
            arguments += ["--login-style", login_style]
        arguments += list(extra_arguments)
        process = subprocess.Popen(
            arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", bufsize=1)
        client = cls(process.stdout, process.stdin, process=process, on_reply=on_reply)
        try:
            client.hello()
        except Exception:
            client.close()
            raise
        return client

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    def close(self, timeout=30):
        """Ends the conversation: the server quits at the end of its input, keeping what it answered.
        Returns its exit status when this client started it."""
        if self._writer is not None:
            try:
                self._writer.close()
            except OSError:
                pass
            self._writer = None
        if self._process is None:
            return None
        try:
            self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()
        return self._process.returncode

    # The protocol

    def hello(self, protocol=PROTOCOL_VERSION):
        """Says which protocol version this client speaks; raises VersionMismatch when the server
        refuses it. Returns the server's versions."""
        reply = self._exchange({"hello": {"protocol": protocol}})
        if "error" in reply:
            raise VersionMismatch(reply["error"])
        self.versions = reply["hello"]
        return self.versions

    def send(self, intent, **arguments):
        """Sends intent `intent` (its name in the protocol: `addNote`) with `arguments`; returns the
        reply once the screens are merged. Raises Refused, Failed, TimedOut or BadLine."""
        return self.send_line(json.dumps({intent: arguments}, ensure_ascii=False, separators=(",", ":")))

    def send_line(self, line):
        """Sends one line as it is (for lines no typed method makes); handled as `send` handles a reply."""
        reply = self._exchange_line(line)
        if "error" in reply:
            raise BadLine(reply["error"])
        self._merge(reply["screens"])
        status = reply["status"]
        if "rejected" in status:
            raise Refused(status["rejected"]["reason"])
        if "failed" in status:
            raise Failed(status["failed"]["reason"])
        if "timedOut" in status:
            raise TimedOut(status["timedOut"]["running"])
        return reply

    def _exchange(self, message):
        return self._exchange_line(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    def _exchange_line(self, line):
        if self._writer is None:
            raise ServerGone("the conversation is closed")
        try:
            self._writer.write(line + "\n")
            self._writer.flush()
        except (BrokenPipeError, OSError) as error:
            raise ServerGone(self._why_gone(f"the server stopped reading ({error})")) from error
        answer = self._reader.readline()
        if not answer:
            raise ServerGone(self._why_gone("the server ended without answering"))
        reply = json.loads(answer)
        if self._on_reply is not None:
            self._on_reply(reply)
        return reply

    def _why_gone(self, what):
        if self._process is not None and self._process.stderr is not None and self._process.poll() is not None:
            said = self._process.stderr.read().strip()
            if said:
                return f"{what}: {said}"
        return what

    def _merge(self, update):
        """Takes what changed on the screens: each changed screen whole, but the notes' rows, which
        come whole (`all`) or as the rows that changed (`changes`) in the page the client holds."""
        for name in update["changed"]:
            if name not in update:
                continue
            if name != "notes":
                self.screens[name] = update[name]
                continue
            notes = dict(update["notes"])
            rows = notes.pop("rows")
            held = self.screens.get("notes", {}).get("rows", [])
            if "all" in rows:
                merged = list(rows["all"]["rows"])
            else:
                changes = rows["changes"]
                leaving = set(changes["removed"]) | {change["row"]["id"] for change in changes["upserted"]}
                merged = [row for row in held if row["id"] not in leaving]
                for change in changes["upserted"]:
                    merged.insert(min(change["at"], len(merged)), change["row"])
            notes["rows"] = merged
            self.screens["notes"] = notes

    # Typed intents, one per intent of the protocol (its IntentLine)

    def sign_up(self, username, password):
        """Creates an account."""
        return self.send("signUp", username=username, password=password)

    def type_username(self, username):
        """Types into the sign-in screen's username field."""
        return self.send("typeUsername", username=username)

    def type_password(self, password):
        """Types into the sign-in screen's password field."""
        return self.send("typePassword", password=password)

    def sign_in(self):
        """Signs in with what was typed."""
        return self.send("signIn")

    def dismiss_error(self):
        """Dismisses the sign-in error."""
        return self.send("dismissError")

    def sign_out(self):
        """Signs out."""
        return self.send("signOut")

    def load_profile(self):
        """Loads the profile and the posts."""
        return self.send("loadProfile")

    def retry_profile(self):
        """Loads again what failed on the profile screen."""
        return self.send("retryProfile")

    def add_post(self, text):
        """Publishes a post."""
        return self.send("addPost", text=text)

    def add_note(self, text):
        """Adds a note, which opens."""
        return self.send("addNote", text=text)

    def edit_note(self, id, text):
        """Changes a note's text, based on the version this client was shown."""
        return self.send("editNote", id=id, text=text)

    def delete_note(self, id):
        """Deletes a note."""
        return self.send("deleteNote", id=id)

    def select_note(self, id):
        """Opens a note, or closes the open one with None."""
        return self.send("selectNote", id=id)

    def search_notes(self, query):
        """Searches the notes; an empty query lists them all again."""
        return self.send("searchNotes", query=query)

    def type_notes_search(self, query):
        """Types into the search field (searched once typing pauses)."""
        return self.send("typeNotesSearch", query=query)

    def retry_note(self, id):
        """Saves again a note whose save failed."""
        return self.send("retryNote", id=id)

    def reload_notes(self):
        """Loads the notes again, with what other processes wrote."""
        return self.send("reloadNotes")

    def show_more_notes(self):
        """Asks for the next page of rows."""
        return self.send("showMoreNotes")

    def dismiss_notes_error(self):
        """Dismisses the notes error."""
        return self.send("dismissNotesError")

    def increment(self):
        """Adds one to the counter."""
        return self.send("increment")

    def decrement(self):
        """Takes one from the counter (never below zero)."""
        return self.send("decrement")

    def reset(self):
        """Sets the counter back to zero."""
        return self.send("reset")
