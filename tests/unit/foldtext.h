/*
 * foldtext.h - what a fold and a session counted, as text the unit tests
 * compare between two runs of one capture (check_memo.c, check_twopass.c).
 */
#ifndef FOLDTEXT_H
#define FOLDTEXT_H

#include "pda_fold.h"
#include "pda_session.h"

/* fd's lines, "stack weight samples period\n" each (fd finished);
 * free() it. */
char *ft_lines(struct pda_fold *fd);
/* st's unresolved and missing binaries, "what dso samples unresolved\n"
 * each; free() it. */
char *ft_dsos(const struct pda_stats *st);

#endif /* FOLDTEXT_H */
