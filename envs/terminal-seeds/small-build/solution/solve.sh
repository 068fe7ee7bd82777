#!/bin/bash
set -e
cat > /app/src/Makefile <<'END'
# Builds build/hello from hello.c and greet.c.
CC = gcc
CFLAGS = -Wall -O2 -std=c99
BUILD = build
OBJS = $(BUILD)/hello.o $(BUILD)/greet.o

all: $(BUILD)/hello

$(BUILD)/hello: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS)

$(BUILD)/%.o: %.c greet.h | $(BUILD)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD):
	mkdir -p $(BUILD)

clean:
	rm -rf $(BUILD)

.PHONY: all clean
END
