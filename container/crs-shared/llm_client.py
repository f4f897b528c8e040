"""llm_client.py - the LLM gateway client of crs-ci's LLM CRSs.

One copy for crs-llm-patcher and crs-llm-inputs: `make` copies this file
into each CRS's bin/ folder (the CRS folder is its image's build context,
so the copy is hashed into the image tag), and each Dockerfile puts it
beside the CRS's script. OpenAI-compatible chat completions through the
gateway ($OSS_CRS_LLM_API_URL); the key is only ever sent as the
Authorization header, never through a proxy (the gateway is on the CRS's
own network). Python 3 standard library only.
"""

import json
import time
import urllib.error
import urllib.request

ANSWER_MAX = 4 << 20            # bytes of the gateway's answer read
ERROR_MAX = 300                 # characters of an error message kept
RETRY_STATUSES = (0, 502, 503, 504)     # no answer, or the provider's


class LLMError(Exception):
    """status: the gateway's HTTP status, 0 when it did not answer, 200
    when the answer held no text; 429 means the budget is spent."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


class Gateway:
    """Chat completions for cfg.model (cfg.url, cfg.key_file,
    cfg.max_tokens), logging through say(msg). A gateway that did not
    answer, or a provider error, is asked again up to `tries` times in
    all; a reply is cut at reply_max characters (None: not cut)."""

    def __init__(self, cfg, say, tries=1, reply_max=None):
        self.cfg = cfg
        self.say = say
        self.tries = tries
        self.reply_max = reply_max
        base = cfg.url if cfg.url.endswith("/v1") else cfg.url + "/v1"
        self.endpoint = base + "/chat/completions"
        with open(cfg.key_file, encoding="ascii") as f:
            self._key = f.read().strip()
        self._opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}))

    def _post(self, body, timeout):
        req = urllib.request.Request(
            self.endpoint, data=body, method="POST",
            headers={"Authorization": "Bearer " + self._key,
                     "Content-Type": "application/json"})
        try:
            with self._opener.open(req, timeout=timeout) as r:
                raw = r.read(ANSWER_MAX + 1)
        except urllib.error.HTTPError as e:
            text = e.read(4096).decode("utf-8", "replace")
            try:
                msg = json.loads(text)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                msg = _first_line(text) or e.reason
            raise LLMError(e.code, "HTTP %d: %s" % (
                e.code, str(msg)[:ERROR_MAX])) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise LLMError(0, "no answer from the gateway: %s" % e) from None
        if len(raw) > ANSWER_MAX:
            raise LLMError(200, "the answer is over %d bytes" % ANSWER_MAX)
        try:
            return json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            raise LLMError(200, "the answer is not JSON") from None

    def chat(self, messages, timeout):
        """The assistant's text; LLMError on failure."""
        body = json.dumps({"model": self.cfg.model, "messages": messages,
                           "max_tokens": self.cfg.max_tokens}).encode()
        for n in range(1, self.tries + 1):
            try:
                answer = self._post(body, timeout)
                break
            except LLMError as e:
                if e.status not in RETRY_STATUSES or n == self.tries:
                    raise
                self.say("%s; asking again" % e)
                time.sleep(2)
        try:
            content = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(200, "the answer holds no message") from None
        if isinstance(content, list):      # content parts
            content = "".join(p.get("text", "") for p in content
                              if isinstance(p, dict) and
                              isinstance(p.get("text"), str))
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise LLMError(200, "the answer's content is not text")
        usage = answer.get("usage") if isinstance(answer, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        self.say("model %s answered (%s prompt, %s completion tokens)" %
                 (self.cfg.model, usage.get("prompt_tokens", "?"),
                  usage.get("completion_tokens", "?")))
        return content[:self.reply_max] if self.reply_max else content
