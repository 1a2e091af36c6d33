#include "CHTTPClient.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

/*
 * Requests to object storage through libcurl: SigV4 signing (CURLOPT_AWS_SIGV4), timeouts, the response body in
 * a growing buffer with a cap, and the headers a store's answer is read by (ETag, Last-Modified, Content-Length,
 * Content-Range). libcurl never prints: its errors come back in the response's `error`.
 */

struct tsio_http {
    CURL *curl;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

tsio_http *tsio_http_open(void) {
    pthread_once(&global_once, global_init);
    tsio_http *h = calloc(1, sizeof *h);
    if (h == NULL) return NULL;
    h->curl = curl_easy_init();
    if (h->curl == NULL) {
        free(h);
        return NULL;
    }
    return h;
}

void tsio_http_close(tsio_http *h) {
    if (h == NULL) return;
    curl_easy_cleanup(h->curl);
    free(h);
}

typedef struct {
    tsio_http_response *rs;
    size_t capacity;
    uint64_t max_body;
    int over;
    uint8_t *const *dests;  /* the caller's buffers of `dest_size` bytes, filled in order; NULL: a malloc'd one */
    size_t dest_size;
} sink;

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    sink *s = user;
    size_t n = size * count;
    if (s->rs->body_size + n > s->max_body) {
        s->over = 1;
        return 0;
    }
    if (s->dests != NULL) {
        size_t done = 0;
        while (done < n) {
            size_t at = s->rs->body_size + done, within = at % s->dest_size;
            size_t piece = s->dest_size - within < n - done ? s->dest_size - within : n - done;
            memcpy(s->dests[at / s->dest_size] + within, data + done, piece);
            done += piece;
        }
        s->rs->body_size += n;
        return n;
    }
    if (s->rs->body_size + n > s->capacity) {
        size_t want = s->capacity ? s->capacity * 2 : 16384;
        while (want < s->rs->body_size + n) want *= 2;
        uint8_t *grown = realloc(s->rs->body, want);
        if (grown == NULL) return 0;
        s->rs->body = grown;
        s->capacity = want;
    }
    memcpy(s->rs->body + s->rs->body_size, data, n);
    s->rs->body_size += n;
    return n;
}

/* Copies a header's value (trimmed) when `line` is that header. */
static int header_value(const char *line, size_t n, const char *name, char *out, size_t cap) {
    size_t k = strlen(name);
    if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':') return 0;
    const char *v = line + k + 1, *end = line + n;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
    size_t len = (size_t)(end - v) < cap - 1 ? (size_t)(end - v) : cap - 1;
    memcpy(out, v, len);
    out[len] = 0;
    return 1;
}

static size_t on_header(char *data, size_t size, size_t count, void *user) {
    tsio_http_response *rs = user;
    size_t n = size * count;
    char value[160];
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        /* A new response (after a 100 Continue, say): forget the last one's headers. */
        rs->etag[0] = 0;
        rs->last_modified[0] = 0;
        rs->content_length = (uint64_t)-1;
        rs->total_size = 0;
    } else if (header_value(data, n, "ETag", rs->etag, sizeof rs->etag)) {
    } else if (header_value(data, n, "Last-Modified", rs->last_modified, sizeof rs->last_modified)) {
    } else if (header_value(data, n, "Content-Length", value, sizeof value)) {
        rs->content_length = strtoull(value, NULL, 10);
    } else if (header_value(data, n, "Content-Range", value, sizeof value)) {
        const char *slash = strchr(value, '/');
        if (slash != NULL && isdigit((unsigned char)slash[1])) rs->total_size = strtoull(slash + 1, NULL, 10);
    }
    return n;
}

int tsio_http_perform(tsio_http *h, const tsio_http_request *rq, tsio_http_response *rs) {
    memset(rs, 0, sizeof *rs);
    rs->content_length = (uint64_t)-1;
    CURL *c = h->curl;
    curl_easy_reset(c);
    sink s = {rs, 0, rq->max_body, 0, rq->dest_count > 0 && rq->dest_size > 0 ? rq->dests : NULL, rq->dest_size};
    if (s.dests != NULL && s.max_body > (uint64_t)rq->dest_count * rq->dest_size) s.max_body = (uint64_t)rq->dest_count * rq->dest_size;
    struct curl_slist *headers = NULL;
    if (rq->headers != NULL) {
        const char *at = rq->headers;
        while (*at) {
            const char *end = strchr(at, '\n');
            size_t len = end ? (size_t)(end - at) : strlen(at);
            char line[1024];
            if (len > 0 && len < sizeof line) {
                memcpy(line, at, len);
                line[len] = 0;
                struct curl_slist *more = curl_slist_append(headers, line);
                if (more != NULL) headers = more;
            }
            at += len + (end ? 1 : 0);
        }
    }
    curl_easy_setopt(c, CURLOPT_URL, rq->url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, rq->connect_timeout_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, rq->timeout_ms);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    /* A PUT's "Expect: 100-continue" (which libcurl adds unsigned: removing it would put an empty header among the
     * signed ones) waits at most this long for the store's go-ahead. */
    curl_easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, 200L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, rs);
    if (rq->sigv4 != NULL) {
        curl_easy_setopt(c, CURLOPT_AWS_SIGV4, rq->sigv4);
        curl_easy_setopt(c, CURLOPT_USERNAME, rq->access_key ? rq->access_key : "");
        curl_easy_setopt(c, CURLOPT_PASSWORD, rq->secret_key ? rq->secret_key : "");
    }
    if (strcmp(rq->method, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (strcmp(rq->method, "PUT") == 0) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body ? (const char *)rq->body : "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_size);
    } else if (strcmp(rq->method, "GET") != 0) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
    }
    CURLcode code = curl_easy_perform(c);
    curl_slist_free_all(headers);
    if (code != CURLE_OK) {
        rs->timed_out = code == CURLE_OPERATION_TIMEDOUT;
        snprintf(rs->error, sizeof rs->error, "%s", s.over ? "the response is larger than expected" : curl_easy_strerror(code));
        rs->status = 0;
        return -1;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rs->status);
    return 0;
}

void tsio_http_response_free(tsio_http_response *rs) {
    free(rs->body);
    rs->body = NULL;
    rs->body_size = 0;
}
