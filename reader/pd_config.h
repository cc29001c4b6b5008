/*
 * pd_config.h - feature macros and compiler attributes, set once for the
 * whole tree (STYLE B3).  Included first by every private header.
 */
#ifndef PD_CONFIG_H
#define PD_CONFIG_H

#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#if defined(__GNUC__)
#define PD_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define PD_NORETURN __attribute__((noreturn))
#define PD_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PD_PRINTF(fmt, args)
#define PD_NORETURN
#define PD_UNLIKELY(x) (x)
#endif

#endif /* PD_CONFIG_H */
