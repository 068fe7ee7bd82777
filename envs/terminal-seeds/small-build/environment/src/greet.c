#include <stdio.h>
#include "greet.h"

void greet(const char *name)
{
    printf("Hello, %s! (greet v%d)\n", name, GREET_VERSION);
}
