-- CreateIndex
CREATE INDEX "Event_id_list_idx" ON "Event"("id", "status", "localStart", "localEnd", "hideFromListings", "password", "featured", "eventStatus", "attendanceMode", "authorId");
