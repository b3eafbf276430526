// A header that is not there, included after a tab: the host compiler's message, its column
// counted with the tab, and the caret under the file name (host_02.expected).
#include "lab.h"
	#include "tile_helpers.h"
