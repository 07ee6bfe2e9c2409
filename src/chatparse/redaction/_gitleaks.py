r"""The credential formats of gitleaks' rule set, as :class:`~chatparse.redaction.Rule` objects.

Source: gitleaks (https://github.com/gitleaks/gitleaks, MIT licence), ``config/gitleaks.toml`` at
commit ``b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b`` (July 2026): the rules whose secret has a
fixed shape of its own, each under its gitleaks id, with its regular expression, keywords and
entropy threshold. Left out: the rules that find a secret only by a nearby word
(``generic-api-key`` and the rules that look for a vendor's name near a random string), which
flag ordinary words and identifiers in prose and code; the ``secret-assignment`` rules cover
``KEY=value`` instead.

Changed from gitleaks, each for a reason:

* Go scopes a flag written inside a pattern (``a(?i)b``) to the rest of its group; Python needs
  ``a(?i:b)``. ``\z`` is written ``\Z``. Patterns are compiled with ``re.ASCII``, as Go's ``\w``
  and ``\b`` are ASCII.
* gitleaks ends many keys with ``(?:[\x60'"\s;]|\\[nr]|$)``: a quote, a space or a semicolon
  must follow, as in source code. A transcript also puts a key before ``.``, ``,``, ``)`` or
  ``&``; here the key must only not go on (``(?![\w-])``).
* ``vault-service-token``: the legacy ``s.`` + 24 characters form is left out (it matches dotted
  names in code).
* ``aws-amazon-bedrock-api-key-short-lived`` matched only the key's fixed prefix; the rest of the
  key is included, so that it is replaced too.
* ``slack-config-access-token`` and ``slack-webhook-url``: a ``.`` that stood for any character
  is escaped, as the rules' keywords (which hold the dot) require.
* ``microsoft-teams-webhook``: its groups do not capture, so the whole URL is the secret rather
  than its first group, and its keyword is the ``://`` it holds (shared with ``url-password``, so
  that one search finds both); ``sentry-org-token`` no longer takes the character after the token.
* ``slack-app-token``, ``slack-legacy-token``, ``slack-legacy-workspace-token`` and
  ``stripe-access-token`` matched strings shorter than any real token of theirs; they now need the
  :data:`~chatparse.redaction.SHORTEST_TOKEN` characters every token rule needs.
* ``private-key``: a block cut off before its ``END`` line (a truncated tool output) is replaced up
  to the end of its base64 body, rather than left in full.
* gitleaks' allow lists (documentation example keys, such as AWS's ``...EXAMPLE``) are not
  applied: such a key cannot be told from a real one by its shape, and redacting it costs nothing.
"""

from __future__ import annotations

import re
from typing import Final

from chatparse.redaction._rule import Rule

__all__ = ["GITLEAKS_COMMIT", "GITLEAKS_RULES"]

GITLEAKS_COMMIT: Final = "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b"
"""The gitleaks commit the rules were taken from."""

_CUT_OFF_KEY_BODY: Final = (
    r"(?:(?:\s|\\[nr])*(?:[A-Za-z0-9+/=]{8,}|(?:Proc-Type|DEK-Info|Comment): [^\r\n\\]*))*+"
)
"""A private key's base64 lines (and its PEM or SSH2 headers) when its END line is missing:
chunks of at least 8 base64 characters, so that the first short word of prose after it stops
it."""


def _token(
    kind: str, pattern: str, keywords: tuple[str, ...], *, entropy: float | None = None
) -> Rule:
    return Rule(
        kind=kind,
        pattern=re.compile(pattern, re.ASCII),
        keywords=keywords,
        token=True,
        entropy=entropy,
    )


def _text(kind: str, pattern: str, keywords: tuple[str, ...]) -> Rule:
    return Rule(kind=kind, pattern=re.compile(pattern, re.ASCII), keywords=keywords)


GITLEAKS_RULES: Final[tuple[Rule, ...]] = (
    _token(
        "aws-access-token",
        r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
        ("a3t", "akia", "asia", "abia", "acca"),
        entropy=3,
    ),
    _token(
        "aws-amazon-bedrock-api-key-long-lived",
        r"\b(ABSK[A-Za-z0-9+/]{109,269}={0,2})(?![\w-])",
        ("absk",),
        entropy=3,
    ),
    _token(
        "aws-amazon-bedrock-api-key-short-lived",
        r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/]*={0,2}",
        ("bedrock-api-key-",),
        entropy=3,
    ),
    _token("gcp-api-key", r"\b(AIza[\w-]{35})(?![\w-])", ("aiza",), entropy=4),
    _token(
        "azure-ad-client-secret",
        r"""(?:^|[\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<),])""",
        ("q~",),
        entropy=3,
    ),
    _token("alibaba-access-key-id", r"\b(LTAI(?i:[a-z0-9]{20}))(?![\w-])", ("ltai",), entropy=2),
    _token(
        "digitalocean-access-token", r"\b(doo_v1_[a-f0-9]{64})(?![\w-])", ("doo_v1_",), entropy=3
    ),
    _token("digitalocean-pat", r"\b(dop_v1_[a-f0-9]{64})(?![\w-])", ("dop_v1_",), entropy=3),
    _token("digitalocean-refresh-token", r"(?i)\b(dor_v1_[a-f0-9]{64})(?![\w-])", ("dor_v1_",)),
    _token(
        "heroku-api-key-v2", r"\b((HRKU-AA[0-9a-zA-Z_-]{58}))(?![\w-])", ("hrku-aa",), entropy=4
    ),
    _token(
        "flyio-access-token",
        r"\b((?:fo1_[\w-]{43}|fm1[ar]_[a-zA-Z0-9+\/]{100,}={0,3}|fm2_[a-zA-Z0-9+\/]{100,}={0,3}))(?![\w-])",
        ("fo1_", "fm1", "fm2_"),
        entropy=4,
    ),
    _token("vault-batch-token", r"\b(hvb\.[\w-]{138,300})(?![\w-])", ("hvb.",), entropy=4),
    _token("vault-service-token", r"\b(hvs\.[\w-]{90,120})(?![\w-])", ("hvs.",), entropy=3.5),
    _token(
        "cloudflare-origin-ca-key",
        r"\b(v1\.0-[a-f0-9]{24}-[a-f0-9]{146})(?![\w-])",
        ("cloudflare", "v1.0-"),
        entropy=2,
    ),
    _token("databricks-api-token", r"\b(dapi[a-f0-9]{32}(?:-\d)?)(?![\w-])", ("dapi",), entropy=3),
    _token(
        "hashicorp-tf-api-token",
        r"(?i)[a-z0-9]{14}\.(?-i:atlasv1)\.[a-z0-9\-_=]{60,70}",
        ("atlasv1",),
        entropy=3.5,
    ),
    _token("doppler-api-token", r"dp\.pt\.(?i:[a-z0-9]{43})", ("dp.pt.",), entropy=2),
    _token(
        "dynatrace-api-token", r"dt0c01\.(?i:[a-z0-9]{24}\.[a-z0-9]{64})", ("dt0c01.",), entropy=4
    ),
    _token(
        "1password-service-account-token", r"ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}", ("ops_",), entropy=4
    ),
    _token(
        "1password-secret-key",
        r"\bA3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
        ("a3-",),
        entropy=3.8,
    ),
    _token(
        "age-secret-key",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        ("age-secret-key-1",),
    ),
    _token(
        "planetscale-api-token",
        r"\b(pscale_tkn_(?i:[\w=\.-]{32,64}))(?![\w-])",
        ("pscale_tkn_",),
        entropy=3,
    ),
    _token(
        "planetscale-oauth-token",
        r"\b(pscale_oauth_[\w=\.-]{32,64})(?![\w-])",
        ("pscale_oauth_",),
        entropy=3,
    ),
    _token(
        "planetscale-password",
        r"(?i)\b(pscale_pw_(?i:[\w=\.-]{32,64}))(?![\w-])",
        ("pscale_pw_",),
        entropy=3,
    ),
    _token("pulumi-api-token", r"\b(pul-[a-f0-9]{40})(?![\w-])", ("pul-",), entropy=2),
    _token("prefect-api-token", r"\b(pnu_[a-zA-Z0-9]{36})(?![\w-])", ("pnu_",), entropy=2),
    _token(
        "grafana-api-key",
        r"(?i)\b(eyJrIjoi[A-Za-z0-9]{70,400}={0,3})(?![\w-])",
        ("eyjrijoi",),
        entropy=3,
    ),
    _token(
        "grafana-cloud-api-token",
        r"(?i)\b(glc_[A-Za-z0-9+/]{32,400}={0,3})(?![\w-])",
        ("glc_",),
        entropy=3,
    ),
    _token(
        "grafana-service-account-token",
        r"(?i)\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})(?![\w-])",
        ("glsa_",),
        entropy=3,
    ),
    _token("sentry-user-token", r"\b(sntryu_[a-f0-9]{64})(?![\w-])", ("sntryu_",), entropy=3.5),
    _token(
        "sentry-org-token",
        r"\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?![a-zA-Z0-9+/])",
        ("sntrys_eyjpyxqio",),
        entropy=4.5,
    ),
    _token("linear-api-key", r"lin_api_(?i:[a-z0-9]{40})", ("lin_api_",), entropy=2),
    _token(
        "notion-api-token",
        r"\b(ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3})(?![\w-])",
        ("ntn_",),
        entropy=4,
    ),
    _token(
        "postman-api-token",
        r"\b(PMAK-(?i:[a-f0-9]{24}\-[a-f0-9]{34}))(?![\w-])",
        ("pmak-",),
        entropy=3,
    ),
    _token("openshift-user-token", r"\b(sha256~[\w-]{43})(?:[^\w-]|\Z)", ("sha256~",), entropy=3.5),
    _token("clickhouse-cloud-api-secret-key", r"\b(4b1d[A-Za-z0-9]{38})\b", ("4b1d",), entropy=3),
    _token("artifactory-api-key", r"\bAKCp[A-Za-z0-9]{69}\b", ("akcp",), entropy=4.5),
    _token("artifactory-reference-token", r"\bcmVmd[A-Za-z0-9]{59}\b", ("cmvmd",), entropy=4.5),
    _token("github-pat", r"ghp_[0-9a-zA-Z]{36}", ("ghp_",), entropy=3),
    _token("github-oauth", r"gho_[0-9a-zA-Z]{36}", ("gho_",), entropy=3),
    _token("github-app-token", r"(?:ghu|ghs)_[0-9a-zA-Z]{36}", ("ghu_", "ghs_"), entropy=3),
    _token("github-refresh-token", r"ghr_[0-9a-zA-Z]{36}", ("ghr_",), entropy=3),
    _token("github-fine-grained-pat", r"github_pat_\w{82}", ("github_pat_",), entropy=3),
    _token("gitlab-pat", r"glpat-[\w-]{20}", ("glpat-",), entropy=3),
    _token(
        "gitlab-pat-routable",
        r"\bglpat-[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b",
        ("glpat-",),
        entropy=4,
    ),
    _token("gitlab-ptt", r"glptt-[0-9a-f]{40}", ("glptt-",), entropy=3),
    _token("gitlab-rrt", r"GR1348941[\w-]{20}", ("gr1348941",), entropy=3),
    _token("gitlab-runner-authentication-token", r"glrt-[0-9a-zA-Z_\-]{20}", ("glrt-",), entropy=3),
    _token(
        "gitlab-runner-authentication-token-routable",
        r"\bglrt-t\d_[0-9a-zA-Z_\-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b",
        ("glrt-",),
        entropy=4,
    ),
    _token("gitlab-deploy-token", r"gldt-[0-9a-zA-Z_\-]{20}", ("gldt-",), entropy=3),
    _token("gitlab-feed-token", r"glft-[0-9a-zA-Z_\-]{20}", ("glft-",), entropy=3),
    _token("gitlab-incoming-mail-token", r"glimt-[0-9a-zA-Z_\-]{25}", ("glimt-",), entropy=3),
    _token(
        "gitlab-kubernetes-agent-token", r"glagent-[0-9a-zA-Z_\-]{50}", ("glagent-",), entropy=3
    ),
    _token("gitlab-oauth-app-secret", r"gloas-[0-9a-zA-Z_\-]{64}", ("gloas-",), entropy=3),
    _token("gitlab-scim-token", r"glsoat-[0-9a-zA-Z_\-]{20}", ("glsoat-",), entropy=3),
    _token(
        "gitlab-cicd-job-token", r"glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}", ("glcbt-",), entropy=3
    ),
    _token(
        "gitlab-feature-flag-client-token", r"glffct-[0-9a-zA-Z_\-]{20}", ("glffct-",), entropy=3
    ),
    _token(
        "gitlab-session-cookie", r"_gitlab_session=[0-9a-z]{32}", ("_gitlab_session=",), entropy=3
    ),
    _token("slack-bot-token", r"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*", ("xoxb",), entropy=3),
    _token(
        "slack-user-token",
        r"xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}",
        ("xoxp-", "xoxe-"),
        entropy=2,
    ),
    _token("slack-app-token", r"(?i)xapp-\d-[A-Z0-9]{4,}-\d+-[a-z0-9]{8,}", ("xapp",), entropy=2),
    _token("slack-legacy-bot-token", r"xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}", ("xoxb",), entropy=2),
    _token(
        "slack-legacy-token", r"xox[os]-\d+-\d+-\d+-[a-fA-F\d]{9,}", ("xoxo", "xoxs"), entropy=2
    ),
    _token(
        "slack-legacy-workspace-token",
        r"xox[ar]-(?:\d-)?[0-9a-zA-Z]{15,48}",
        ("xoxa", "xoxr"),
        entropy=2,
    ),
    _token(
        "slack-config-access-token",
        r"(?i)xoxe\.xox[bp]-\d-[A-Z0-9]{163,166}",
        ("xoxe.xoxb-", "xoxe.xoxp-"),
        entropy=2,
    ),
    _token("slack-config-refresh-token", r"(?i)xoxe-\d-[A-Z0-9]{146}", ("xoxe-",), entropy=2),
    _token(
        "slack-webhook-url",
        r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}",
        ("hooks.slack.com",),
    ),
    _text(
        "microsoft-teams-webhook",
        r"https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}",
        ("://",),
    ),
    _token(
        "stripe-access-token",
        r"\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{12,99})(?![\w-])",
        ("sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod"),
        entropy=2,
    ),
    _token(
        "square-access-token",
        r"\b((?:EAAA|sq0atp-)[\w-]{22,60})(?![\w-])",
        ("sq0atp-", "eaaa"),
        entropy=2,
    ),
    _token("sendgrid-api-token", r"\b(SG\.(?i:[a-z0-9=_\-\.]{66}))(?![\w-])", ("sg.",), entropy=2),
    _token(
        "sendinblue-api-token",
        r"\b(xkeysib-[a-f0-9]{64}\-(?i:[a-z0-9]{16}))(?![\w-])",
        ("xkeysib-",),
        entropy=2,
    ),
    _token("shopify-access-token", r"shpat_[a-fA-F0-9]{32}", ("shpat_",), entropy=2),
    _token("shopify-custom-access-token", r"shpca_[a-fA-F0-9]{32}", ("shpca_",), entropy=2),
    _token("shopify-private-app-access-token", r"shppa_[a-fA-F0-9]{32}", ("shppa_",), entropy=2),
    _token("shopify-shared-secret", r"shpss_[a-fA-F0-9]{32}", ("shpss_",), entropy=2),
    _token("twilio-api-key", r"SK[0-9a-fA-F]{32}", ("sk",), entropy=3),
    _token(
        "shippo-api-token",
        r"\b(shippo_(?:live|test)_[a-fA-F0-9]{40})(?![\w-])",
        ("shippo_",),
        entropy=2,
    ),
    _token("easypost-api-token", r"\bEZAK(?i:[a-z0-9]{54}\b)", ("ezak",), entropy=2),
    _token("easypost-test-api-token", r"\bEZTK(?i:[a-z0-9]{54}\b)", ("eztk",), entropy=2),
    _token(
        "duffel-api-token", r"duffel_(?:test|live)_(?i:[a-z0-9_\-=]{43})", ("duffel_",), entropy=2
    ),
    _token(
        "flutterwave-encryption-key",
        r"FLWSECK_TEST-(?i:[a-h0-9]{12})",
        ("flwseck_test",),
        entropy=2,
    ),
    _token(
        "flutterwave-public-key", r"FLWPUBK_TEST-(?i:[a-h0-9]{32}-X)", ("flwpubk_test",), entropy=2
    ),
    _token(
        "flutterwave-secret-key", r"FLWSECK_TEST-(?i:[a-h0-9]{32}-X)", ("flwseck_test",), entropy=2
    ),
    _token(
        "openai-api-key",
        r"\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})(?![\w-])",
        ("t3blbkfj",),
        entropy=3,
    ),
    _token(
        "anthropic-api-key", r"\b(sk-ant-api03-[a-zA-Z0-9_\-]{93}AA)(?![\w-])", ("sk-ant-api03",)
    ),
    _token(
        "anthropic-admin-api-key",
        r"\b(sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA)(?![\w-])",
        ("sk-ant-admin01",),
    ),
    _token("huggingface-access-token", r"\b(hf_(?i:[a-z]{34}))(?![\w-])", ("hf_",), entropy=2),
    _token(
        "huggingface-organization-api-token",
        r"\b(api_org_(?i:[a-z]{34}))(?![\w-])",
        ("api_org_",),
        entropy=2,
    ),
    _token("perplexity-api-key", r"\b(pplx-[a-zA-Z0-9]{48})(?![\w-])", ("pplx-",), entropy=4),
    _token("npm-access-token", r"(?i)\b(npm_[a-z0-9]{36})(?![\w-])", ("npm_",), entropy=2),
    _token(
        "pypi-upload-token",
        r"pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}",
        ("pypi-ageichlwas5vcmc",),
        entropy=3,
    ),
    _token("rubygems-api-token", r"\b(rubygems_[a-f0-9]{48})(?![\w-])", ("rubygems_",), entropy=2),
    _token("clojars-api-token", r"(?i)CLOJARS_[a-z0-9]{60}", ("clojars_",), entropy=2),
    _token(
        "jwt",
        r"\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.(?:[a-zA-Z0-9\/\\_-]{10,}={0,2})?)(?![\w-])",
        ("ey",),
        entropy=3,
    ),
    _text(
        "private-key",
        r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S-]{64,}?KEY(?: BLOCK)?-----|" + _CUT_OFF_KEY_BODY + ")",
        ("-----begin",),
    ),
)
