-- CreateIndex
CREATE INDEX "Venue_geoLat_geoLng_idx" ON "Venue"("geoLat", "geoLng");
