#include <openslide/openslide.h>
