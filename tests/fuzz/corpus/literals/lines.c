if (x == 0x7f) return "a\x00b\n";
case 42: c = '\''; /* "not" */
  s = R"(raw)"; // "no"
while (p != -1 && q >= 65536L) { y = u8"\u00e9"; }
/* open
still "comment" */ if (c == 'A') x = 0b1010 + 1e3;
String j = "java" + '\u0041';
