/* libargon2 (the reference implementation of the Password Hashing Competition's winner): argon2id hashes. */
#include <argon2.h>
