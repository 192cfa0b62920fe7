"""Secrets a user can rely on (gitmem/policy/secrets.py): the common token formats are found, names
(identifiers, file paths, env var names) never are, the scan stays linear on hostile text, and
only the user's own configuration allows a false positive."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.policy.secrets import SECRET_RULES, fingerprint, scan_secrets, user_allow_list

# one example of each format, made up in the documented shape (none is a live credential)
FORMATS = {
    "JSON Web Token": "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "Slack webhook": "alerts go to https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/"
    "abcDEFghiJKLmnoPQRstuVWX",
    "Slack app token": "SLACK_APP=xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef",
    "password in a URL": "DATABASE_URL=postgres://app:s3cr3tPa55@db.internal:5432/app",
    "Azure storage account key": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;",
    "Hugging Face token": "HF token hf_abcdefghijklmnopqrstuvwxyzABCDEFGH for the hub",
    "npm token": "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "SendGrid API key": "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
    "Google OAuth client secret": '"client_secret": "GOCSPX-abcdefghijklmnopqrstuvwxyz12"',
    "password in an environment line": "DB_PASSWORD=hunter2",
    "age secret key": "AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2,
    "Stripe webhook secret": "whsec_abcdefghijklmnopqrstuvwxyz0123456789",
    "DigitalOcean token": "dop_v1_" + "a1" * 32,
    "Shopify token": "shpat_" + "0a" * 16,
    "PyPI token": "pypi-AgEIcHlwaS5vcmc" + "A" * 60,
    "Google OAuth token": "ya29.a0AfH6SMBabcdefghijklmnopqrstuvwxyz0123",
    "Discord webhook": "https://discord.com/api/webhooks/123456789012345678/" + "abcdefghij" * 6,
    "HashiCorp Vault token": "VAULT_TOKEN=hvs.CAESIabcdefghijklmnopqrstuvwxyz",
}
MORE_URLS = [
    "mysql://root:Tr0ub4dor@10.0.0.1/db",
    "mongodb+srv://admin:hunter2x@cluster0.abcde.mongodb.net/",
    "redis://:p4ssw0rd@cache:6379/0",
    "amqps://svc:Zk8pQ2rT@mq.internal/vhost",
    "https://deploy:9f8e7d6c5b@git.example.org/o/r.git",
]
MORE_ENV = [
    "export API_TOKEN='x9Kq2LmPz7'",
    "POSTGRES_PASSWORD=hunter2",
    'SECRET_KEY="kq92Lp0xz"',
    "db_passwd = correct-horse  # the staging one",
]
NOT_SECRETS = [
    "Sort key: src/components/UserProfileCard.tsx",
    "token: JWT_EXPIRATION_SECONDS",
    "password: use the vault, never write it here",
    "PASSWORD=$DB_PASSWORD",
    "DB_PASSWORD=${DB_PASSWORD}",
    "SORT_KEY=created_at",
    "The primary key: user_profiles.account_id",
    "postgres://user:password@localhost/db",
    "https://user:tok@Host/o/r.git/",
    "amqp://guest:guest@localhost",
    "API_KEY=<your key>",
    "secret: config.auth.clientSecretName",
    "Set TOKEN=GITHUB_TOKEN in CI",
    "PWD=/home/me",
    "key = some/path/to/file.ts",
    "cache key: userSessionCacheKeyPrefix2024",
    "token (JWT_SECRET_KEY_NAME) sets the cookie",
    "pass=true",
    "password = None",
    "MY_KEY=10",
    "SECRET_FILE=./secrets/dev.json",
    "key: docs/decisions/0007-use-postgres.md",
    "the API token lives in the CI_DEPLOY_TOKEN variable",
    "hf_hub_download(repo_id=...) fetches a model",
    "npm_config_registry is read from .npmrc",
    "eyJ is how a base64 JSON object starts",
]


@pytest.mark.parametrize("what", sorted(FORMATS))
def test_each_format_is_found_on_its_line(what: str) -> None:
    found = scan_secrets("# Notes\n\n" + FORMATS[what] + "\nmore prose\n")
    assert [(m.line, m.message.split(" (")[0]) for m in found] == [(3, what)], found


@pytest.mark.parametrize("text", MORE_URLS + MORE_ENV)
def test_passwords_in_urls_and_env_lines_are_found(text: str) -> None:
    assert len(scan_secrets(text + "\n")) == 1, text


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_names_paths_placeholders_and_references_are_not_secrets(text: str) -> None:
    assert scan_secrets(text + "\n") == []


_word = st.sampled_from(
    [
        "user",
        "profile",
        "card",
        "jwt",
        "expiration",
        "seconds",
        "cache",
        "session",
        "api",
        "config",
        "auth",
        "client",
        "name",
        "src",
        "components",
        "account",
        "id",
        "token",
    ]
)
_words = st.lists(_word, min_size=1, max_size=6)
identifiers = st.one_of(
    _words.map(lambda w: "_".join(w).upper()),  # JWT_EXPIRATION_SECONDS
    _words.map(lambda w: "_".join(w)),  # user_profile_card
    _words.map(lambda w: w[0] + "".join(x.title() for x in w[1:])),  # userProfileCard
    _words.map(lambda w: "".join(x.title() for x in w)),  # UserProfileCard
    st.tuples(_words, st.sampled_from([".tsx", ".py", ".md", ".json"])).map(
        lambda t: "/".join(t[0]) + t[1]  # src/components/card.tsx
    ),
    _words.map(lambda w: ".".join(w)),  # config.auth.client
)


@given(
    st.sampled_from(["key", "token", "secret", "password", "Sort key", "api_key", "auth token"]),
    st.sampled_from([": ", " = ", ":"]),
    identifiers,
)
def test_identifiers_paths_and_env_names_never_fire(name: str, sep: str, value: str) -> None:
    """(`PASSWORD = anything` on a line of its own is a password, whatever it looks like.)"""
    if "=" not in sep or name.endswith(("key", "token")):
        assert scan_secrets(f"{name}{sep}{value}\n") == []
    assert scan_secrets(f"- {name} {value} is read at start\n") == []


_TRIGGERS = sorted({t for rule in SECRET_RULES for t in rule.triggers})


@settings(max_examples=40)
@given(
    st.lists(
        st.sampled_from([*_TRIGGERS, "a", "A", "0", "-", "=", ":", "@", ".", " ", "\n"]),
        min_size=1,
        max_size=8,
    ),
)
def test_the_scan_is_linear_on_hostile_repetitions(unit: list[str]) -> None:
    """A quarter MiB of any repeated mix of triggers and token characters is scanned within
    the policy's second a MiB (docs/design.md §6): no rule backtracks across the text."""
    chunk = "".join(unit)
    text = chunk * (2**18 // len(chunk) + 1)
    start = time.process_time()
    scan_secrets(text)
    assert time.process_time() - start < 0.5  # quadratic would take minutes; load is shared


@pytest.mark.parametrize(
    "text",
    [
        "eyJ-" * 300_000,
        "eyJ" + "a" * 1_000_000,
        "postgres://" + "a" * 1_000_000,
        "postgres://a:" * 100_000,
        "DB_PASSWORD=" + "x" * 1_000_000,
        "key: " * 250_000,
        "hooks.slack.com/services/" * 40_000,
        "AccountKey=" * 100_000,
    ],
    ids=lambda t: repr(t[:14]),
)
def test_known_worst_cases_stay_within_a_second_a_mib(text: str) -> None:
    start = time.process_time()
    scan_secrets(text)
    assert time.process_time() - start < 1.0


def test_only_the_users_own_configuration_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "DB_PASSWORD=hunter2\nAKIAIOSFODNN7EXAMPLE\n"
    marks = [m.fingerprint for m in scan_secrets(text)]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_allow_list({}).fingerprints == frozenset()
    allow = user_allow_list({"gitmem.allowsecret": [marks[0]]})
    assert [m.fingerprint for m in scan_secrets(text, allow.fingerprints)] == marks[1:]
    (tmp_path / "xdg" / "gitmem").mkdir(parents=True)
    (tmp_path / "xdg" / "gitmem" / "allow").write_text(f"# mine\n{marks[1]}\n")
    allow = user_allow_list({})
    assert allow.fingerprints == {marks[1]} and not allow.path_allowed("team/fixtures/a.md")
    assert fingerprint("hunter2") == marks[0]


# -- what a byte search for the triggers may skip (the tree check's `git grep`) ---------------


def test_every_rule_starts_at_a_listed_trigger_and_every_ascii_fold_is_known() -> None:
    from gitmem.policy.secrets import FOLDS_TO_ASCII, INJECTION_RULES, TRIGGERS

    for rule in (*SECRET_RULES, *INJECTION_RULES):
        assert {t.lower() for t in rule.triggers} <= set(TRIGGERS), rule.what
    # every character outside ASCII whose lower case is one ASCII character: the only way a
    # folded trigger stands in a text whose bytes do not hold it
    folds = [c for c in map(chr, range(0x80, 0x110000)) if len(c.lower()) == 1 < ord(c)]
    assert "".join(c for c in folds if c.lower().isascii()) == FOLDS_TO_ASCII


def _bytes_hold_a_trigger(text: str) -> bool:
    from gitmem.policy.secrets import TRIGGERS

    folded = text.encode("utf-8", "surrogatepass").lower()  # ASCII letters only, as git grep -i
    return any(t.encode() in folded for t in TRIGGERS)


def test_a_kelvin_sign_hides_a_trigger_from_a_byte_search_and_is_still_scanned() -> None:
    from gitmem.policy.rules import check_content
    from gitmem.policy.secrets import trigger_free

    text = "api_\u212aey = Zx8Qw3Lm9Rt2Vb7Np4Hy6\n"
    assert not _bytes_hold_a_trigger(text) and scan_secrets(text)
    assert not trigger_free(text)
    data = b"---\nname: n\ndescription: d\ntype: project\n---\n" + text.encode()
    codes = [f.code for f in check_content("team/n.md", data, triggered=False)]
    assert "GM140" in codes


PIECES = st.sampled_from(
    ["key", "KEY", "Key", "\u212aey", "sk-", "SK-", "AKIA", "akia", "://", "pass", "=", ":",
     " ", "\n", "ignore", "previous", "instructions", "x9Qw3Lm9Rt2Vb7Np4Hy6Zq", "\u0130", "é"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=12).map("".join))
def test_a_text_whose_bytes_hold_no_trigger_gives_both_scans_nothing(text: str) -> None:
    from gitmem.policy.secrets import scan_injection, trigger_free

    if not _bytes_hold_a_trigger(text) and trigger_free(text):
        assert scan_secrets(text) == [] and scan_injection(text) == []
