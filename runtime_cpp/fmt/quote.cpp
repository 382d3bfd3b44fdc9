// Quoted text of str and char elements inside containers (10.1) and in error messages
// (`to_int: invalid integer "12x"`). Bytes >= 0x80 pass through: text is normally UTF-8.
#include "fmt/text.h"

void rt_fmt_quoted(NvBuf* b, const char* s, int64_t len, char quote) {
    static const char hex[] = "0123456789abcdef";
    rt_buf_putc(b, quote);
    for (int64_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char* esc = nullptr;
        switch (c) {
            case '\n': esc = "\\n"; break;
            case '\t': esc = "\\t"; break;
            case '\r': esc = "\\r"; break;
            case '\0': esc = "\\0"; break;
            case '\\': esc = "\\\\"; break;
            default: break;
        }
        if (esc) {
            rt_buf_append(b, esc, 2);
        } else if (c == (unsigned char)quote) {
            rt_buf_putc(b, '\\');
            rt_buf_putc(b, quote);
        } else if (c < 0x20 || c == 0x7f) {
            char t[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            rt_buf_append(b, t, 4);
        } else {
            rt_buf_putc(b, (char)c);
        }
    }
    rt_buf_putc(b, quote);
}
