/*
 * Just enough JSON for the line protocol: a writer for request parameters (strings escaped as the
 * server's JSON.parse expects) and a reader that finds members and spans without building a tree,
 * so a result document reaches the caller byte for byte as the simulator serialised it.
 */
#include "hnsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hn_buf_init(hn_buf *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->failed = 0;
}

void hn_buf_free(hn_buf *b) {
  free(b->data);
  hn_buf_init(b);
}

/* Room for n more bytes plus a NUL, so the text can always be used as a C string. */
static int grow(hn_buf *b, size_t n) {
  if (b->failed) return 0;
  if (b->len + n + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + n + 1) {
    if (cap > ((size_t)-1) / 2) {
      b->failed = 1;
      return 0;
    }
    cap *= 2;
  }
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = 1;
    return 0;
  }
  b->data = p;
  b->cap = cap;
  return 1;
}

void hn_buf_raw(hn_buf *b, const char *s, size_t n) {
  if (!grow(b, n)) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void hn_buf_cstr(hn_buf *b, const char *s) {
  hn_buf_raw(b, s, strlen(s));
}

void hn_buf_json_utf8(hn_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  hn_buf_raw(b, "\"", 1);
  size_t run = 0; /* bytes copied as they are, flushed before each escape */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      run++;
      continue;
    }
    hn_buf_raw(b, s + i - run, run);
    run = 0;
    char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
    switch (c) {
    case '"': hn_buf_raw(b, "\\\"", 2); break;
    case '\\': hn_buf_raw(b, "\\\\", 2); break;
    case '\n': hn_buf_raw(b, "\\n", 2); break;
    case '\r': hn_buf_raw(b, "\\r", 2); break;
    case '\t': hn_buf_raw(b, "\\t", 2); break;
    default: hn_buf_raw(b, esc, 6); break;
    }
  }
  hn_buf_raw(b, s + n - run, run);
  hn_buf_raw(b, "\"", 1);
}

void hn_buf_json_wstr(hn_buf *b, PCWSTR s) {
  if (!s) {
    hn_buf_cstr(b, "null");
    return;
  }
  char *u = hn_utf8_from_wide(s);
  if (!u) {
    b->failed = 1;
    return;
  }
  hn_buf_json_utf8(b, u, strlen(u));
  free(u);
}

void hn_buf_json_guid(hn_buf *b, const GUID *g) {
  if (!g) {
    hn_buf_cstr(b, "null");
    return;
  }
  char text[48];
  snprintf(text, sizeof text, "\"%08lX-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X\"", (unsigned long)g->Data1,
           g->Data2, g->Data3, g->Data4[0], g->Data4[1], g->Data4[2], g->Data4[3], g->Data4[4], g->Data4[5],
           g->Data4[6], g->Data4[7]);
  hn_buf_cstr(b, text);
}

void hn_buf_int(hn_buf *b, long long v) {
  char text[32];
  snprintf(text, sizeof text, "%lld", v);
  hn_buf_cstr(b, text);
}

/* ───────────────────────── reading ───────────────────────── */

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

/* The end of the string literal starting at p (on its opening quote), or NULL. */
static const char *skip_string(const char *p, const char *end) {
  for (p++; p < end; p++) {
    if (*p == '\\') {
      p++;
      continue;
    }
    if (*p == '"') return p + 1;
  }
  return NULL;
}

/*
 * The end of the value starting at p. Containers are skipped by counting brackets outside strings:
 * the text comes from JSON.stringify, so it is well formed, and a malformed line only fails later.
 */
static const char *skip_value(const char *p, const char *end) {
  p = skip_ws(p, end);
  if (p >= end) return NULL;
  if (*p == '"') return skip_string(p, end);
  if (*p == '{' || *p == '[') {
    int depth = 0;
    while (p < end) {
      if (*p == '"') {
        p = skip_string(p, end);
        if (!p) return NULL;
        continue;
      }
      if (*p == '{' || *p == '[') depth++;
      if (*p == '}' || *p == ']') {
        if (--depth == 0) return p + 1;
      }
      p++;
    }
    return NULL;
  }
  /* number, true, false, null */
  const char *start = p;
  while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
  return p > start ? p : NULL;
}

int hn_json_member(hn_span obj, const char *key, hn_span *out) {
  const char *p = obj.p, *end = obj.p + obj.n;
  size_t klen = strlen(key);
  p = skip_ws(p, end);
  if (p >= end || *p != '{') return 0;
  p = skip_ws(p + 1, end);
  if (p < end && *p == '}') return 0;
  while (p < end) {
    if (*p != '"') return 0;
    const char *kend = skip_string(p, end);
    if (!kend) return 0;
    /* keys the server writes are plain ASCII: compare the literal's bytes */
    int match = (size_t)(kend - p - 2) == klen && memcmp(p + 1, key, klen) == 0;
    p = skip_ws(kend, end);
    if (p >= end || *p != ':') return 0;
    const char *vstart = skip_ws(p + 1, end);
    const char *vend = skip_value(vstart, end);
    if (!vend) return 0;
    if (match) {
      out->p = vstart;
      out->n = (size_t)(vend - vstart);
      return 1;
    }
    p = skip_ws(vend, end);
    if (p < end && *p == ',') {
      p = skip_ws(p + 1, end);
      continue;
    }
    return 0;
  }
  return 0;
}

int hn_json_next(hn_span arr, size_t *pos, hn_span *item) {
  const char *start = arr.p, *end = arr.p + arr.n;
  const char *p = skip_ws(start + *pos, end);
  if (*pos == 0) {
    if (p >= end || *p != '[') return 0;
    p = skip_ws(p + 1, end);
  } else {
    if (p < end && *p == ',') p = skip_ws(p + 1, end);
  }
  if (p >= end || *p == ']') return 0;
  const char *vend = skip_value(p, end);
  if (!vend) return 0;
  item->p = p;
  item->n = (size_t)(vend - p);
  *pos = (size_t)(vend - start);
  return 1;
}

int hn_json_bool(hn_span s) {
  const char *p = skip_ws(s.p, s.p + s.n), *end = s.p + s.n;
  return end - p >= 4 && memcmp(p, "true", 4) == 0;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int read_u4(const char *p, const char *end, unsigned *out) {
  if (end - p < 4) return 0;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(p[i]);
    if (h < 0) return 0;
    v = v * 16 + (unsigned)h;
  }
  *out = v;
  return 1;
}

static void put_utf8(hn_buf *b, unsigned cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  hn_buf_raw(b, u, n);
}

char *hn_json_string(hn_span s) {
  const char *p = s.p, *end = s.p + s.n;
  p = skip_ws(p, end);
  if (p >= end || *p != '"') return NULL;
  hn_buf b;
  hn_buf_init(&b);
  hn_buf_raw(&b, "", 0); /* an empty string is "" , not NULL */
  for (p++; p < end && *p != '"'; p++) {
    if (*p != '\\') {
      const char *run = p;
      while (p < end && *p != '"' && *p != '\\') p++;
      hn_buf_raw(&b, run, (size_t)(p - run));
      p--;
      continue;
    }
    if (++p >= end) break;
    switch (*p) {
    case 'n': hn_buf_raw(&b, "\n", 1); break;
    case 'r': hn_buf_raw(&b, "\r", 1); break;
    case 't': hn_buf_raw(&b, "\t", 1); break;
    case 'b': hn_buf_raw(&b, "\b", 1); break;
    case 'f': hn_buf_raw(&b, "\f", 1); break;
    case 'u': {
      unsigned cp, lo;
      if (!read_u4(p + 1, end, &cp)) goto bad;
      p += 4;
      if (cp >= 0xD800 && cp < 0xDC00 && end - p > 6 && p[1] == '\\' && p[2] == 'u' && read_u4(p + 3, end, &lo) &&
          lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        p += 6;
      } else if (cp >= 0xD800 && cp < 0xE000) {
        cp = 0xFFFD; /* a lone surrogate has no UTF-8 form */
      }
      put_utf8(&b, cp);
      break;
    }
    default: hn_buf_raw(&b, p, 1); break; /* \" \\ \/ */
    }
  }
  if (p >= end || b.failed) goto bad;
  return b.data;
bad:
  hn_buf_free(&b);
  return NULL;
}

int hn_json_int(hn_span s, long long *out) {
  const char *p = skip_ws(s.p, s.p + s.n), *end = s.p + s.n;
  int neg = 0;
  unsigned long long v = 0;
  if (p < end && *p == '-') {
    neg = 1;
    p++;
  }
  if (p >= end || *p < '0' || *p > '9') return 0;
  for (; p < end && *p >= '0' && *p <= '9'; p++) {
    if (v > (0xFFFFFFFFFFFFFFFFull - 9) / 10) return 0;
    v = v * 10 + (unsigned)(*p - '0');
  }
  p = skip_ws(p, end);
  if (p != end) return 0; /* a fraction or exponent: not an integer we expect */
  if (neg) {
    if (v > 0x8000000000000000ull) return 0;
    *out = v == 0x8000000000000000ull ? (long long)(-0x7FFFFFFFFFFFFFFFll - 1) : -(long long)v;
  } else {
    if (v > 0x7FFFFFFFFFFFFFFFull) return 0;
    *out = (long long)v;
  }
  return 1;
}

int hn_json_is_null(hn_span s) {
  const char *p = skip_ws(s.p, s.p + s.n), *end = s.p + s.n;
  return p >= end || (end - p >= 4 && memcmp(p, "null", 4) == 0);
}

/* ───────────────────────── UTF-16 and UTF-8 ───────────────────────── */

char *hn_utf8_from_wide(PCWSTR s) {
  if (!s) return NULL;
  int n = WideCharToMultiByte(CP_UTF8, 0, s, -1, NULL, 0, NULL, NULL);
  if (n <= 0) return NULL;
  char *u = malloc((size_t)n);
  if (!u) return NULL;
  if (WideCharToMultiByte(CP_UTF8, 0, s, -1, u, n, NULL, NULL) != n) {
    free(u);
    return NULL;
  }
  return u;
}

PWSTR hn_cotask_wide(const char *s, size_t n) {
  if (n > 0x3FFFFFFF) return NULL;
  int w = n ? MultiByteToWideChar(CP_UTF8, 0, s, (int)n, NULL, 0) : 0;
  if (n && w <= 0) return NULL;
  PWSTR out = CoTaskMemAlloc(((size_t)w + 1) * sizeof(WCHAR));
  if (!out) return NULL;
  if (w && MultiByteToWideChar(CP_UTF8, 0, s, (int)n, out, w) != w) {
    CoTaskMemFree(out);
    return NULL;
  }
  out[w] = L'\0';
  return out;
}

int hn_same_id(const char *a, const char *b) {
  for (;; a++, b++) {
    char x = *a, y = *b;
    if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
    if (x != y) return 0;
    if (!x) return 1;
  }
}
