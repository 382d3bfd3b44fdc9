/* `// neve: owned` marks a function whose returned pointer Neve owns (11.2). */
typedef struct buf buf;

buf* buf_new(int cap); // neve: owned
buf* buf_view(buf* b);
buf* buf_concat(buf* a,
                buf* b);  // neve: owned
buf* buf_slice(buf* b,  // neve: owned
               int lo, int hi);
buf* buf_copy(buf* b,
              // neve: owned
              int deep);
buf* buf_dup(buf* b); /* neve: owned */
void buf_free(buf* b);
