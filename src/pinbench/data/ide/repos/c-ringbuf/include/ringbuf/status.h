#ifndef RINGBUF_STATUS_H
#define RINGBUF_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes returned by every ringbuf function that can fail (0 is success). */
enum rb_status {
    RB_OK = 0,         /**< success */
    RB_EFULL = -1,     /**< not enough free space in the buffer or table */
    RB_EEMPTY = -2,    /**< nothing (or not enough) to read */
    RB_EINVAL = -3,    /**< an argument is out of range or NULL */
    RB_ENOMEM = -4,    /**< an allocation failed */
    RB_ECRC = -5,      /**< a frame's checksum does not match its payload */
    RB_ETOOBIG = -6,   /**< a payload or value does not fit its destination */
    RB_ESYNTAX = -7,   /**< a configuration line cannot be parsed */
    RB_ENOTFOUND = -8  /**< no entry with that key */
};

/**
 * Describe a status code in a few words, for log messages.
 *
 * @param status one of the RB_* codes
 * @return a static, NUL-terminated description ("unknown status" for other values)
 */
const char *rb_strerror(int status);

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_STATUS_H */
