"""The Python client against the real appcore-serve, every reply checked against the schema the
server prints. The executable is $APPCORE_SERVE, else the repository's debug build.

    python3 -m unittest discover -s Clients/python -v
"""

import json
import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

try:
    from jsonschema import Draft202012Validator
except ImportError as error:  # the tests check every reply against the schema; CI installs it
    raise SystemExit("these tests need the jsonschema package: python3 -m pip install jsonschema") from error

from appcore_client import PROTOCOL_VERSION, BadLine, Client, Failed, Refused, VersionMismatch

ROOT = Path(__file__).resolve().parents[2]
SERVE = os.environ.get("APPCORE_SERVE") or str(ROOT / ".build" / "debug" / "appcore-serve")
SCHEMA = json.loads(subprocess.run([SERVE, "--schema"], check=True, capture_output=True, text=True).stdout)


def validator(definition):
    """A validator of one of the schema's definitions (IntentLine, ReplyLine)."""
    return Draft202012Validator(dict(SCHEMA, **{"$ref": f"#/$defs/{definition}"}))


REPLIES = validator("ReplyLine")
INTENTS = validator("IntentLine")


class Conversation:
    """Starts clients whose every reply is checked against the schema, and closes them at the end."""

    def __init__(self, test):
        self.test = test
        self.replies = 0

    def check(self, reply):
        errors = sorted(REPLIES.iter_errors(reply), key=lambda error: list(error.absolute_path))
        self.test.assertEqual([], [f"{list(e.absolute_path)}: {e.message}" for e in errors], f"a reply off the schema: {reply}")
        self.replies += 1

    def start(self, **arguments):
        client = Client.start(executable=SERVE, on_reply=self.check, **arguments)
        self.test.addCleanup(lambda: self.test.assertEqual(0, client.close(), "the server ended cleanly"))
        return client


def signed_in(client, username="alice.liddell", password="wonderland"):
    client.sign_up(username, password)
    client.type_username(username)
    client.type_password(password)
    client.sign_in()
    return client


class SchemaTests(unittest.TestCase):
    def test_the_schema_is_a_valid_2020_12_schema_with_both_lines(self):
        Draft202012Validator.check_schema(SCHEMA)
        self.assertEqual("https://json-schema.org/draft/2020-12/schema", SCHEMA["$schema"])
        self.assertIn("IntentLine", SCHEMA["$defs"])
        self.assertIn("ReplyLine", SCHEMA["$defs"])

    def test_the_committed_schema_is_the_one_the_server_prints(self):
        committed = json.loads((ROOT / "Tools" / "protocol" / "appcore-serve.schema.json").read_text())
        self.assertEqual(committed, SCHEMA, "run Tools/protocol/check --update")

    def test_every_intent_of_the_schema_has_a_typed_method_and_its_line_is_valid(self):
        names = [next(iter(line["properties"])) for line in SCHEMA["$defs"]["IntentLine"]["oneOf"]]
        self.assertIn("addNote", names)
        for name in names:
            if name == "hello":
                continue
            method = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
            self.assertTrue(callable(getattr(Client, method, None)), f"no Client.{method} for intent {name}")
        self.assertTrue(INTENTS.is_valid({"editNote": {"id": "00000000-0000-0000-0000-000000000001", "text": "x"}}))
        self.assertFalse(INTENTS.is_valid({"editNote": {"text": "x"}}), "an edit names its note")
        self.assertFalse(INTENTS.is_valid({"increment": {}, "decrement": {}}), "one intent per line")


class ConversationTests(unittest.TestCase):
    def setUp(self):
        self.conversation = Conversation(self)

    def test_hello_says_the_versions_and_another_major_version_is_refused(self):
        client = self.conversation.start(in_memory=True)
        self.assertEqual(PROTOCOL_VERSION, client.versions["protocol"])
        self.assertRegex(client.versions["appcore"], r"^\d+\.\d+\.\d+$")
        with self.assertRaises(VersionMismatch) as refusal:
            client.hello(protocol="2.0")
        self.assertIn("protocol 2.0", str(refusal.exception))
        client.increment()  # the server goes on
        self.assertEqual(1, client.screens["counter"]["count"])

    def test_signing_in_in_each_login_style(self):
        for style in ("fsm", "adhoc", "middleware"):
            with self.subTest(style=style):
                client = signed_in(self.conversation.start(in_memory=True, login_style=style))
                self.assertTrue(client.screens["session"]["isSignedIn"])
                self.assertEqual("alice.liddell", client.screens["session"]["username"])

    def test_a_wrong_password_is_a_failure_with_its_reason(self):
        client = self.conversation.start(in_memory=True)
        client.sign_up("alice.liddell", "wonderland")
        client.type_username("alice.liddell")
        client.type_password("not-the-password")
        with self.assertRaises((Failed, Refused)) as failure:
            client.sign_in()
        self.assertIn("incorrect", str(failure.exception))
        self.assertFalse(client.screens["session"]["isSignedIn"])

    def test_notes_add_edit_search_page_and_delete(self):
        client = signed_in(self.conversation.start(in_memory=True))
        client.add_note("milk")
        client.add_note("oat milk")
        client.add_note("bread")
        rows = client.screens["notes"]["rows"]
        self.assertEqual(["bread", "oat milk", "milk"], [row["title"] for row in rows])
        bread = rows[0]["id"]
        client.edit_note(rows[2]["id"], "milk and honey")
        self.assertEqual(["milk and honey", "bread", "oat milk"], [row["title"] for row in client.screens["notes"]["rows"]])

        client.search_notes("milk")
        self.assertEqual(["milk and honey", "oat milk"], [row["title"] for row in client.screens["notes"]["rows"]])
        self.assertEqual(2, client.screens["notes"]["count"])
        client.search_notes("")

        client.delete_note(bread)
        self.assertNotIn(bread, [row["id"] for row in client.screens["notes"]["rows"]])
        self.assertEqual(2, client.screens["notes"]["count"])

        # More notes than a page: the rows held are the page, and showing more merges the next one.
        for n in range(60):
            client.add_note(f"note {n}")
        notes = client.screens["notes"]
        self.assertEqual(62, notes["count"])
        self.assertEqual(notes["rowLimit"], len(notes["rows"]))
        client.show_more_notes()
        notes = client.screens["notes"]
        self.assertEqual(min(62, notes["rowLimit"]), len(notes["rows"]))
        self.assertEqual("note 59", notes["rows"][0]["title"])
        self.assertEqual(len({row["id"] for row in notes["rows"]}), len(notes["rows"]), "no row twice")

    def test_the_rows_merged_from_changes_are_the_rows_sent_whole(self):
        client = signed_in(self.conversation.start(in_memory=True))
        for text in ["a", "b", "c", "d"]:
            client.add_note(text)
        client.edit_note(client.screens["notes"]["rows"][3]["id"], "a, edited")
        client.delete_note(client.screens["notes"]["rows"][2]["id"])
        merged = client.screens["notes"]["rows"]
        fresh = Client(client._reader, client._writer, on_reply=self.conversation.check)
        fresh.reload_notes()  # a reader that holds nothing gets the page whole
        self.assertEqual([row["title"] for row in merged], [row["title"] for row in client.screens["notes"]["rows"]])

    def test_an_edit_another_process_made_first_is_a_conflict(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)  # after the servers close (cleanups run last first)
        database = Path(folder.name) / "app.sqlite"
        first = signed_in(self.conversation.start(database=database))
        first.add_note("milk")
        note = first.screens["notes"]["rows"][0]["id"]
        second = self.conversation.start(database=database)
        second.type_username("alice.liddell")
        second.type_password("wonderland")
        second.sign_in()
        self.assertEqual(["milk"], [row["title"] for row in second.screens["notes"]["rows"]])

        second.edit_note(note, "milk and honey")
        with self.assertRaises((Failed, Refused)) as conflict:
            first.edit_note(note, "oat milk")
        self.assertIn("changed", str(conflict.exception))
        first.reload_notes()
        self.assertEqual(["milk and honey"], [row["title"] for row in first.screens["notes"]["rows"]])

    def test_the_counter(self):
        client = self.conversation.start(in_memory=True)
        client.increment()
        client.increment()
        client.decrement()
        self.assertEqual({"count": 1, "canDecrement": True}, client.screens["counter"])
        client.reset()
        self.assertEqual(0, client.screens["counter"]["count"])

    def test_a_malformed_line_is_an_error_and_the_conversation_goes_on(self):
        client = self.conversation.start(in_memory=True)
        with self.assertRaises(BadLine) as bad:
            client.send_line("{not json")
        self.assertIn("not valid JSON", str(bad.exception))
        with self.assertRaises(BadLine) as unknown:
            client.send("fly")
        self.assertIn("fly", str(unknown.exception))
        with self.assertRaises(Refused):
            client.add_note("milk")  # nobody is signed in
        client.increment()
        self.assertEqual(1, client.screens["counter"]["count"])

    def tearDown(self):
        self.assertGreater(self.conversation.replies, 0, "replies were checked against the schema")


if __name__ == "__main__":
    unittest.main()
