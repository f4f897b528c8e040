    if (n >= 16) return -1;
#define MAX 16
for (ptr = ip; ptr <= filledIp; ++ptr) {
U32 const minChain = chainSize < target - idx ? target - chainSize : idx;
goto _out;
XML_Char buf[XML_ENCODE_MAX];
p = malloc(n + 1); assert(p);
if ((uptrval)src > LZ4_DISTANCE_MAX) x = a->b[i] <= f(c, d); /* a < b */
