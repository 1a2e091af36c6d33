#ifndef CHTTPCLIENT_H
#define CHTTPCLIENT_H
/*
 * HTTP for object storage: libcurl behind a few calls, apart from the codecs (CImageIO) so that object storage
 * needs libcurl alone and the codecs need no HTTP.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsio_http tsio_http;

/* One libcurl handle: its connections are kept alive between requests, so a caller keeps a few and reuses them.
 * One thread at a time. */
tsio_http *tsio_http_open(void);
void tsio_http_close(tsio_http *h);

typedef struct {
    const char *method;       /* "GET", "HEAD", "PUT", "DELETE" */
    const char *url;          /* fully escaped */
    const char *headers;      /* "Name: value" lines separated by '\n', or NULL */
    const char *sigv4;        /* libcurl's AWS SigV4 provider string ("aws:amz:REGION:s3"), or NULL: unsigned */
    const char *access_key;   /* with `sigv4` */
    const char *secret_key;
    const uint8_t *body;      /* PUT's body */
    size_t body_size;
    long connect_timeout_ms;
    long timeout_ms;          /* the whole transfer */
    uint64_t max_body;        /* a longer response body is a failure, not a buffer grown without end */
    uint8_t *const *dests;    /* where the body goes: `dest_count` buffers of `dest_size` bytes filled in order, at
                                 most `max_body` in all (the last buffer may be shorter when `max_body` ends in it);
                                 none: into the response's `body` */
    size_t dest_count;
    size_t dest_size;
} tsio_http_request;

typedef struct {
    long status;              /* the HTTP status; 0 when the transfer failed */
    uint8_t *body;            /* malloc'd (tsio_http_response_free); NULL when the request gave `dests` */
    size_t body_size;
    char etag[160];
    char last_modified[64];
    uint64_t content_length;  /* -1 when absent */
    uint64_t total_size;      /* of the object, from Content-Range (a ranged GET); 0 when absent */
    int timed_out;
    char error[256];          /* why the transfer failed */
} tsio_http_response;

/* 0 when a response came (any status), -1 when none did (`error` says why). */
int tsio_http_perform(tsio_http *h, const tsio_http_request *rq, tsio_http_response *rs);
void tsio_http_response_free(tsio_http_response *rs);

#ifdef __cplusplus
}
#endif
#endif
