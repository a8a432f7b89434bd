-- `search` (ILIKE '%term%' on each searched column) reads these trigram indexes instead of every row.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "Event_title_trgm_idx" ON "Event" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Event_excerpt_trgm_idx" ON "Event" USING GIN ("excerpt" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Event_description_trgm_idx" ON "Event" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_name_trgm_idx" ON "Venue" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_description_trgm_idx" ON "Venue" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_excerpt_trgm_idx" ON "Venue" USING GIN ("excerpt" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_address_trgm_idx" ON "Venue" USING GIN ("address" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_city_trgm_idx" ON "Venue" USING GIN ("city" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_province_trgm_idx" ON "Venue" USING GIN ("province" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_state_trgm_idx" ON "Venue" USING GIN ("state" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_stateprovince_trgm_idx" ON "Venue" USING GIN ("stateprovince" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_zip_trgm_idx" ON "Venue" USING GIN ("zip" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Venue_phone_trgm_idx" ON "Venue" USING GIN ("phone" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Organizer_name_trgm_idx" ON "Organizer" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Organizer_description_trgm_idx" ON "Organizer" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Organizer_excerpt_trgm_idx" ON "Organizer" USING GIN ("excerpt" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Organizer_phone_trgm_idx" ON "Organizer" USING GIN ("phone" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Organizer_email_trgm_idx" ON "Organizer" USING GIN ("email" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Organizer_website_trgm_idx" ON "Organizer" USING GIN ("website" gin_trgm_ops);
