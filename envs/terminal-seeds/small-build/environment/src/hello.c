#include "greet.h"

int main(void)
{
    greet("envforge");
    return 0;
}
