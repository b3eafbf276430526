#!/bin/sh
# Writes two small image datasets into DIR, plain (P3, P2) files a test can read.
#   input.ppm, output.pgm  color to grayscale: a 7 x 5 color image whose columns alternate between
#                          a red-blue and a green color, and its gray 0.21 r + 0.71 g + 0.07 b as
#                          the kit's lab defines it, with 16-bit levels. Neighbouring pixels'
#                          grays differ by about 0.44, far over libwb's 0.2: a program that reads
#                          the wrong pixel fails there.
#   blur_in.pgm, blur_out.pgm  a 3x3 box blur: a 9 x 6 gray image and the mean of each pixel's
#                          neighbours inside the image, with 16-bit levels.
#   make_gray_dataset.sh DIR
set -eu
dir="$1"
mkdir -p "$dir"
awk -v dir="$dir" 'BEGIN {
  width = 7; height = 5
  ppm = dir "/input.ppm"; pgm = dir "/output.pgm"
  print "P3\n# color stripes\n" width " " height "\n255" > ppm
  print "P2\n" width " " height "\n65535" > pgm
  for (y = 0; y < height; y++) {
    line = ""; gline = ""
    for (x = 0; x < width; x++) {
      if (x % 2 == 0) { r = 200; g = 30; b = 90 } else { r = 10; g = 250; b = 40 }
      r += 5 * y; g -= 5 * y; b += 5 * y
      line = line " " r " " g " " b
      gray = (0.21 * r + 0.71 * g + 0.07 * b) / 255
      gline = gline " " int(gray * 65535 + 0.5)
    }
    print substr(line, 2) > ppm
    print substr(gline, 2) > pgm
  }
  bw = 9; bh = 6; bin = dir "/blur_in.pgm"; bout = dir "/blur_out.pgm"
  print "P2\n" bw " " bh "\n255" > bin
  print "P2\n" bw " " bh "\n65535" > bout
  for (y = 0; y < bh; y++)
    for (x = 0; x < bw; x++)
      v[x, y] = (x * 37 + y * 91) % 256
  for (y = 0; y < bh; y++) {
    line = ""; bline = ""
    for (x = 0; x < bw; x++) {
      line = line " " v[x, y]
      sum = 0; n = 0
      for (dy = -1; dy <= 1; dy++)
        for (dx = -1; dx <= 1; dx++)
          if (y + dy >= 0 && y + dy < bh && x + dx >= 0 && x + dx < bw) {
            sum += v[x + dx, y + dy]; n++
          }
      bline = bline " " int(sum / n / 255 * 65535 + 0.5)
    }
    print substr(line, 2) > bin
    print substr(bline, 2) > bout
  }
}'
