#ifndef GREET_H
#define GREET_H

#define GREET_VERSION 2

/* Prints the greeting line for `name` to standard output. */
void greet(const char *name);

#endif
